package engine

import (
	"time"

	"github.com/betplan/betplan/notify"
)

// SendRunFailure tells targets, once each, that a run of the plan named
// planName failed before it held its journal, because of err (the
// service could not be used): the run_failed alert alone, unjournalled
// (there is no journal to keep it in), to the targets that hear it, within
// opts' NotifyWithin. It returns what was not delivered.
func SendRunFailure(opts Options, targets []notify.Target, planName string, err error) []AlertResult {
	opts.Notify = targets
	res := &Result{}
	sendUnjournalledFailure(opts, planName, opts.Simulated, time.Now(), res, err)
	return res.Alerts
}
