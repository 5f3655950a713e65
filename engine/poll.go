package engine

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// unresultedAfter is how long after its start a notification nothing was
// placed on may stay unresulted before it counts as not taken.
const unresultedAfter = 2 * time.Hour

// update applies a fresh notification to its instance. It reads the
// per-session records (one call) once it is resulted, and before that
// when the bots answered and nothing was accepted: a refusal by every
// session ends the bet then, not at the race.
func (f *follower) update(ctx context.Context, in *instance, n *apiclient.Notification) error {
	f.book.observe(in, n)
	if s := n.Tip.Competition.StartTime.Time; !s.IsZero() && !s.Equal(in.info.Start) {
		if !in.info.Start.IsZero() {
			f.logf("%s: the service now lists its race at %s (was %s)", in.name(), f.raceTime(in.info.Venue, s), f.raceTime(in.info.Venue, in.info.Start))
		}
		in.info.Start = s
	}
	f.notePlacement(in, n)
	if bool(n.IsCanceled) && n.TotalAccepted > 0 && !in.canceled {
		f.logf("cancelled %s after it was placed: $%.2f already placed by %s stays on; nothing more will be placed",
			in.name(), float64(n.TotalAccepted), sessionList(in.placedBy))
	}
	if n.IsCanceled {
		f.book.cancelled(in)
	}
	switch {
	case bool(n.IsCanceled) && float64(n.TotalAccepted) == 0:
		f.book.end(in, StatusCanceled, "cancelled before any session placed it")
		return nil
	case !n.Resulted() && n.TotalAccepted == 0 && !in.info.Start.IsZero() && f.clock.Now().After(in.info.Start.Add(unresultedAfter)):
		// A notification the service never matched to a race is never
		// resulted; nothing was placed, so nothing is left to follow.
		f.book.end(in, StatusNotTaken, fmt.Sprintf("no session placed it and the service had not resulted it %s after the start", unresultedAfter))
		return nil
	case !n.Resulted() && n.TotalAccepted == 0 && in.answered() && in.answeredBy != n.ReceivedBots:
		// The bots answered and accepted nothing: read what each session
		// said, once per answer.
		recs, err := f.records(ctx, in)
		if err != nil || recs == nil {
			return err
		}
		f.book.answered(in, n.ReceivedBots)
		if refused, why := everyRefused(recs); refused {
			f.book.end(in, StatusFailed, "every session refused it: "+why)
			f.logOutcome(in)
			return nil
		}
		f.book.move(in, StatusCreated, "the sessions answered; none has placed it yet")
		return nil
	case !n.Resulted():
		if n.TotalAccepted > 0 && in.canceled {
			// Cancelled after it was placed: nothing more is placed (so
			// cancel and stop leave it be), what was placed awaits the
			// result.
			f.book.move(in, StatusCanceled, fmt.Sprintf("cancelled after $%.2f was placed, which stays on; awaiting the result", float64(n.TotalAccepted)))
		} else if n.TotalAccepted > 0 {
			f.book.move(in, StatusPlaced, fmt.Sprintf("$%.2f accepted at average odds %.2f; awaiting the result", float64(n.TotalAccepted), float64(n.AverageOdds)))
		} else if in.status != StatusCreated || in.reason == "" {
			f.book.move(in, StatusCreated, "no session has placed it yet")
		}
		return nil
	}
	if n.TotalAccepted > 0 {
		// Settled: the notification says how it ended. What each session
		// did is read with other bets' records in one list read (see
		// completeRecords), not one call per bet.
		f.book.settled(in, settledReason(n))
		f.logOutcome(in)
		return nil
	}
	recs, err := f.records(ctx, in)
	if err != nil || recs == nil {
		return err
	}
	accepted := false
	for i := range recs {
		accepted = accepted || recs[i].Accepted()
	}
	refused, why := everyRefused(recs)
	switch {
	case accepted:
		f.book.complete(in, StatusSettled, settledReason(n))
	case refused:
		f.book.complete(in, StatusFailed, "every session errored: "+why)
	case len(recs) == 0:
		f.book.complete(in, StatusNotTaken, "no session acted on it by race start (no running bot matched, or the race was not found)")
	default:
		f.book.complete(in, StatusNotTaken, "no session placed it before the race")
	}
	f.logOutcome(in)
	return nil
}

// records reads the notification's per-session records into in; nil
// records and a nil error mean the read failed and is tried again on the
// next poll.
func (f *follower) records(ctx context.Context, in *instance) ([]apiclient.BetRecord, error) {
	recs, err := f.read.Records(ctx, in.notifID)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if refused := tokenRefused(err); refused != nil {
			return nil, refused
		}
		f.book.trouble(in, fmt.Sprintf("reading bet records: %v", err), "")
		return nil, nil
	}
	f.applyRecords(in, recs)
	if recs == nil {
		recs = []apiclient.BetRecord{}
	}
	return recs, nil
}

// notePlacement marks a bet first seen placed (and again when more is
// accepted) for its records to be read: who placed it, who refused it and
// why, and when it was placed (readPlacements, in bulk). Until they are
// read the poll's time and the sessions whose bots took it up stand in.
func (f *follower) notePlacement(in *instance, n *apiclient.Notification) {
	accepted := float64(n.TotalAccepted)
	if accepted <= 0 || (in.recordsRead && roundCents(in.recordsAt) == roundCents(accepted)) {
		return
	}
	var by []string
	if len(in.placedBy) == 0 {
		by = f.botSessions(in, n.ReceivedBots)
	}
	f.book.placing(in, f.clock.Now(), by, accepted)
}

// placementWords is the log line of a placement: who accepted, who
// refused and the service's reason.
func placementWords(in *instance, accepted float64) string {
	s := fmt.Sprintf("placed %s: $%.2f accepted by %s", in.name(), accepted, sessionList(in.placedBy))
	if len(in.refusedBy) > 0 {
		s += "; refused by " + strings.Join(in.refusedBy, "; ")
	}
	return s
}

// applyRecords keeps a notification's records and what they say of who
// placed it and when.
func (f *follower) applyRecords(in *instance, recs []apiclient.BetRecord) {
	if f.book.readRecords(in, recs, f.clock.Now()) {
		f.logf("%s", placementWords(in, in.recordsAt))
	}
	f.logDueOutcome(in)
}

// everyRefused reports whether every record failed, and their errors.
func everyRefused(recs []apiclient.BetRecord) (bool, string) {
	var errs []string
	for i := range recs {
		if !recs[i].Failed() {
			return false, ""
		}
		errs = append(errs, fmt.Sprintf("%s: %s", recs[i].DisplayName, recs[i].SubmitError))
	}
	return len(errs) > 0, strings.Join(errs, "; ")
}

// botSessions names the bet's sessions whose bots received the
// notification: who placed it, until the bet records say exactly.
func (f *follower) botSessions(in *instance, bots string) []string {
	var names []string
	for _, b := range strings.Split(bots, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		for _, s := range f.res.sessions {
			if string(s.BotID) != b {
				continue
			}
			if in.bet.TargetSession != "" && !slices.Contains(strings.Split(in.bet.TargetSession, ","), strconv.FormatInt(int64(s.ID), 10)) {
				continue
			}
			names = append(names, s.DisplayName)
		}
	}
	return names
}

func settledReason(n *apiclient.Notification) string {
	result := n.Tip.Competition.Result
	p := float64(n.Profit)
	switch {
	case p > 0:
		return fmt.Sprintf("won $%.2f (result %s)", p, result)
	case p < 0:
		return fmt.Sprintf("lost $%.2f (result %s)", -p, result)
	}
	if result == "" || strings.EqualFold(result, "void") {
		return "void: the stake was returned"
	}
	return fmt.Sprintf("returned the stake (result %s)", result)
}
