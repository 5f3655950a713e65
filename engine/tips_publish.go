package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/betplan/betplan/apiclient"
)

func unknownReason(why string) string {
	if why == "" {
		why = "the run ended before the service's answer was recorded"
	}
	return "a publish was sent and may have reached subscribers (" + why + "): it is never sent again by itself; `betplan run --republish TIP-ID` sends it again"
}

// confirmTips asks, once per run, before the first publication of a real
// run (a published tip cannot be taken back), as a create does.
func (r *tipRun) confirmTips() error {
	return r.ask.confirm(func() string {
		summary := fmt.Sprintf("Plan %q against %s:%s", r.plan.Name, r.opts.BaseURL, r.tipsSummary())
		if n := r.bets.waiting(); n > 0 {
			summary += fmt.Sprintf(" Up to %d %s may be created.", n, plural(n, "bet", "bets"))
		}
		return summary
	})
}

// tipsSummary is what the confirmation says of the tips: " Up to N tips
// will be published to the package's subscribers." ("" without tips).
func (r *tipRun) tipsSummary() string {
	n := 0
	for _, in := range r.insts {
		if (in.status == TipWaiting && !in.final) || in.republish {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" Up to %d %s will be published to the tip package's subscribers.", n, plural(n, "tip", "tips"))
}

// tipster is the tip package's calls, once the run is confirmed.
func (r *tipRun) tipster() (TipsterBackend, error) {
	tb, ok := r.svc.(TipsterBackend)
	if !ok {
		return nil, errors.New("the service client cannot publish tips")
	}
	if err := r.confirmTips(); err != nil {
		return nil, err
	}
	return tb, nil
}

// publishRequest is the wire form of a tip on its race.
func publishRequest(in *tipInstance) apiclient.PublishTip {
	t := in.tip
	return apiclient.PublishTip{
		Competition: in.race.Venue(), Code: in.race.Code, EventNumber: int(in.race.EventNumber),
		Market: t.Market, Selection: t.Selection, AmountUnits: t.AmountUnits,
		Odds: t.Odds, MaxOdds: t.MaxOdds, Bookies: t.Bookies, UseBonus: t.UseBonus,
		Confidence: t.Confidence, Analysis: t.Analysis,
	}
}

// maxPublishAttempts bounds the calls that certainly did not reach the
// service, per tip and run, before it is given up.
const maxPublishAttempts = 3

// publish sends the tips in one call, announced in the journal first. A
// batch the service refused as a whole for its data (400, 404, 406) is
// sent again one tip at a time, so one bad tip does not hold the others
// back: a refused call published nothing.
func (r *tipRun) publish(ctx context.Context, batch []*tipInstance) error {
	if r.opts.TipsterAPIKey == "" {
		r.stopPublishing("no tip package API key: set BETPLAN_TIPSTER_APIKEY")
		for _, in := range batch {
			in.status, in.final, in.reason = TipFailed, true, "not published: "+r.stop
		}
		return nil
	}
	tb, err := r.tipster()
	if err != nil {
		return err
	}
	refused, err := r.publishOnce(ctx, tb, batch)
	if err != nil || !refused || len(batch) == 1 {
		return err
	}
	r.host.logf("the service refused the publish of %d tips as a whole; sending each on its own", len(batch))
	for _, in := range batch {
		if _, err := r.publishOnce(ctx, tb, []*tipInstance{in}); err != nil {
			return err
		}
	}
	return nil
}

// publishOnce is one publish call. refused reports a call the service
// refused for its data (nothing published, each tip may be tried alone).
func (r *tipRun) publishOnce(ctx context.Context, tb TipsterBackend, batch []*tipInstance) (refused bool, err error) {
	if err := r.halt.checkStop(); err != nil {
		for _, in := range batch {
			in.reason = "not published: " + r.halt.why
		}
		return false, err
	}
	entry := make([]journalTip, len(batch))
	req := make([]apiclient.PublishTip, len(batch))
	ids := make([]string, len(batch))
	for i, in := range batch {
		info := in.info
		entry[i] = journalTip{Key: in.key, TipID: in.tip.ID, Race: &info, Odds: in.tip.Odds, Units: in.tip.AmountUnits}
		req[i] = publishRequest(in)
		ids[i] = in.tip.ID
	}
	record := func(op, why string) error {
		return r.hold.journal.Record(journalEntry{Op: op, Tips: entry, Error: why})
	}
	r.host.checkpoint("announce-publish")
	if err := record(opPublishing, ""); err != nil {
		return false, err
	}
	for _, in := range batch {
		in.attempts++
		in.republish = false
	}
	r.host.checkpoint("publishing")
	if r.halt.lockLost() {
		// Announced, never sent: reported unknown, as it cannot be told
		// from a call that was.
		for _, in := range batch {
			in.status, in.final, in.reason = TipUnknown, true, unknownReason("the plan's lock was lost as it was announced")
		}
		return false, r.hold.lease.Err()
	}
	if err := r.hold.journal.noteInFlight(journalEntry{Op: opPublishing, Tips: entry}); err != nil {
		// Announced, never sent: reported unknown, as above.
		for _, in := range batch {
			in.status, in.final, in.reason = TipUnknown, true, unknownReason("it could not be noted in this host's intent file")
		}
		return false, err
	}
	ans, err := tb.PublishTips(ctx, r.opts.TipsterAPIKey, req)
	r.host.checkpoint("posted-publish")
	now := r.clock.Now()
	switch {
	case err == nil && ans.Refused():
		why := fmt.Sprintf("the service answered %s with status %q", "2xx", ans.Status)
		if ans.Message != "" {
			why += ": " + ans.Message
		}
		r.host.logf("publish of %s: %s; reported unknown", strings.Join(ids, ", "), why)
		for _, in := range batch {
			in.status, in.final, in.reason, in.answer = TipUnknown, true, unknownReason(why), ans.Status
		}
		return false, record(opPublishUnknown, why)
	case err == nil:
		jerr := record(opPublished, "")
		r.host.checkpoint("published")
		for _, in := range batch {
			in.status, in.publishedAt, in.reason, in.err = TipPublished, now, "", ""
			in.answer = strings.TrimSpace(ans.Status + " " + ans.Message)
		}
		r.host.logf("published %s (%d %s in one call)", strings.Join(ids, ", "), len(batch), plural(len(batch), "tip", "tips"))
		return false, jerr
	case ctx.Err() != nil:
		// Interrupted mid-publish: the journal's announcement stands, so
		// the next run reports it unknown.
		for _, in := range batch {
			in.status, in.reason = TipUnknown, unknownReason("interrupted while the service was answering")
		}
		return false, ctx.Err()
	case apiclient.IsAmbiguous(err), apiclient.IsServerError(err):
		why := err.Error()
		r.host.logf("publish of %s: %v; it may have gone out: reported unknown, never sent again by itself", strings.Join(ids, ", "), err)
		for _, in := range batch {
			in.status, in.final, in.reason, in.err = TipUnknown, true, unknownReason(why), why
		}
		return false, record(opPublishUnknown, why)
	case isNotSent(err), apiclient.IsRateLimited(err):
		// Nothing reached the service, or it refused before processing.
		r.host.logf("publish of %s: %v; trying again on the next tick", strings.Join(ids, ", "), err)
		for _, in := range batch {
			in.err = err.Error()
			in.status, in.reason = TipWaiting, "the last publish did not reach the service; trying again"
			if in.attempts >= maxPublishAttempts {
				in.status, in.final = TipFailed, true
				in.reason = fmt.Sprintf("gave up after %d publish calls that did not reach the service", in.attempts)
			}
		}
		return false, record(opPublishAbsent, err.Error())
	}
	why := err.Error()
	var apiErr *apiclient.Error
	status := 0
	if errors.As(err, &apiErr) {
		status = apiErr.StatusCode
	}
	r.host.logf("publish of %s refused: %v", strings.Join(ids, ", "), err)
	if jerr := record(opPublishFailed, why); jerr != nil {
		return false, jerr
	}
	for _, in := range batch {
		in.status, in.final, in.err = TipFailed, true, why
		in.reason = "the service refused the publish"
	}
	switch {
	case status == 403:
		r.stopPublishing("the service refused the tip package API key (403): check BETPLAN_TIPSTER_APIKEY")
		for _, in := range batch {
			in.reason = "not published: " + r.stop
		}
	case status == 401:
		r.stopPublishing("the service refused the credentials (401)")
	case status == 400 || status == 404 || status == 406:
		return true, nil
	}
	return false, nil
}

// stopPublishing publishes nothing more this run: every tip still
// waiting is final with why, so the run need not wait for its race.
func (r *tipRun) stopPublishing(why string) {
	if r.stop == "" {
		r.stop = why
		r.host.logf("publishing nothing more: %s", why)
	}
	for _, in := range r.insts {
		if in.status == TipWaiting && !in.final {
			in.status, in.final, in.reason = TipFailed, true, "not published: "+why
		}
	}
}
