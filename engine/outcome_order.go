package engine

// A bet seen placed and resulted in one look (a status, or a cron run,
// after the race) is logged as it happened: placed, then how it ended.
// Its placement is logged once its bet records are read, after the poll
// that saw the result, so the outcome's line waits for it.

// outcomeAfterPlacement reports whether in's outcome must wait for its
// placement to be logged, and marks it due.
func (r *tracker) outcomeAfterPlacement(in *instance) bool {
	if in.needPlacement && !in.placedEarlier && !in.placementLogged {
		in.outcomeDue = true
		return true
	}
	return false
}

// logDueOutcome logs the outcome held back for in's placement.
func (r *tracker) logDueOutcome(in *instance) {
	if in.outcomeDue && !in.needPlacement {
		in.outcomeDue = false
		r.logOutcome(in)
	}
}

// logPlacementUnread logs a placement whose bet records could not be read,
// with what the notification says.
func (r *tracker) logPlacementUnread(in *instance) {
	if !in.placementLogged && !in.placedEarlier && in.notif != nil {
		in.placementLogged = true
		r.logf("placed %s: $%.2f accepted; who placed it is not known yet (the bet records could not be read; the bots of %s took it up)",
			in.name(), float64(in.notif.TotalAccepted), sessionList(in.placedBy))
	}
}

// logOutcomesDue logs, after a read of bet records, the outcomes still
// held back: a placement whose records could not be read is logged first
// with what is known of it.
func (r *tracker) logOutcomesDue() {
	for _, in := range r.insts {
		if !in.outcomeDue {
			continue
		}
		r.logPlacementUnread(in)
		in.outcomeDue = false
		r.logOutcome(in)
	}
}
