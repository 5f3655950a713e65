package engine

// A run told where to write the plan's reports (--report-dir) keeps that
// in the journal; status, cancel and stop, and a status from cron, read it
// and rewrite the reports there, not in the default folder beside an
// older copy.

// keepReportDir records where this run writes its reports when that is
// not where the last run did.
func (r *tracker) keepReportDir() error {
	if r.journal.ReportDir() == r.opts.ReportDir {
		return nil
	}
	return r.journal.Record(journalEntry{Op: opReports, ReportDir: r.opts.ReportDir})
}
