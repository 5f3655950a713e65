package engine

// A bet seen placed and resulted in one look (a status, or a cron run,
// after the race) is logged as it happened: placed, then how it ended.
// Its placement is logged once its bet records are read, after the poll
// that saw the result, so the outcome's line waits for it. The book
// holds and releases the outcome; these say it.

// outcomeAfterPlacement reports whether in's outcome must wait for its
// placement to be logged, and marks it due.
func (f *follower) outcomeAfterPlacement(in *instance) bool { return f.book.holdOutcome(in) }

// logDueOutcome logs the outcome held back for in's placement.
func (f *follower) logDueOutcome(in *instance) {
	if f.book.releaseOutcome(in, false) {
		f.logOutcome(in)
	}
}

// logPlacementUnread logs a placement whose bet records could not be read,
// with what the notification says.
func (f *follower) logPlacementUnread(in *instance) {
	if f.book.placementUnread(in, in.err) {
		f.logPlacementLine(in)
	}
}

// logPlacementLine is the line of a placement known only from its
// notification.
func (f *follower) logPlacementLine(in *instance) {
	f.logf("placed %s: $%.2f accepted; who placed it is not known yet (the bet records could not be read; the bots of %s took it up)",
		in.name(), float64(in.notif.TotalAccepted), sessionList(in.placedBy))
}

// logOutcomesDue logs, after a read of bet records, the outcomes still
// held back: a placement whose records could not be read is logged first
// with what is known of it.
func (f *follower) logOutcomesDue() {
	for _, in := range f.book.insts {
		if !in.outcomeDue {
			continue
		}
		f.logPlacementUnread(in)
		if f.book.releaseOutcome(in, true) {
			f.logOutcome(in)
		}
	}
}

// logOutcome logs how a bet ended, once: the journal keeps that it was
// told (a resulted entry), so a later cron run that reads the same
// outcome again does not repeat it.
func (f *follower) logOutcome(in *instance) {
	if f.outcomeAfterPlacement(in) {
		return
	}
	if f.hold.journal == nil {
		f.logf("%s %s: %s", in.status, in.name(), in.reason)
		return
	}
	if s := f.hold.journal.State(in.label); s != nil && s.Resulted {
		return
	}
	f.logf("%s %s: %s", in.status, in.name(), in.reason)
	if f.hold.journal.writable() {
		_ = f.hold.journal.Record(journalEntry{Op: opResulted, Label: in.label}) // a journal out of reach stops the run on its own
	}
}
