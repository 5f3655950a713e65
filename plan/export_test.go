package plan

// ParseCountingDiagnostics is Parse, with how many diagnostics the parse
// built (each with its message formatted) and the most it held at once.
func ParseCountingDiagnostics(filename string, data []byte) (diags Diagnostics, built, peak int) {
	p, diags := parseData(filename, data)
	return diags, p.d.built, p.d.peak
}
