package apiclient

// Internal helpers exposed to the external test package.
var (
	ParseRetryAfter   = parseRetryAfter
	ParseCreateResult = parseCreateResult
)
