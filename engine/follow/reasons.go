package follow

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine/bet"
	"github.com/betplan/betplan/reason"
)

// Why a bet was not placed, in the service's own words. When a bet ends
// with nothing placed (or partly placed), its notification's detail is
// read once (GET /bet/notification/{id}/: the records every ending reads
// anyway, with the bots' lines and the sessions' parts beside them); when
// the detail has no line at all, the bots' log of it (GET
// /bot/logs/{id}/) is read once and kept as it came, nothing read from
// it. What was read is kept (Host.KeepDetail: the journal's detail_read),
// so a later run or status reads it from there, not from the service
// again. The reason is the records' words (apiclient.RefusalReason), else
// the lines' (the same table), else what betplan saw of the sessions just
// before the create (Bet.Blocked), else not taken; every line is kept.

// Detail is what was read of one notification to say why its bet was not
// (wholly) placed.
type Detail struct {
	// Bots are the received_bots the detail was read at: a later answer
	// (more bots) is read anew.
	Bots string
	// Records are the sessions' answers.
	Records []DetailRecord
	// Lines are the bots' lines, bot_logs then logs, as given.
	Lines []string
	// Sessions are the session_info parts: "Ladbrokes 2 (Ladbrokes)".
	Sessions []string
	// LogRead says the bots' log was read; BotLog is its body as it came
	// (apiclient.MaxBotLogBytes at most), BotLogCut the bytes left off.
	LogRead   bool
	BotLog    string
	BotLogCut int
	// Why is the reason the detail gave the bet.
	Why reason.Why

	kept bool // read from what a run or status kept, not from the service
}

// DetailRecord is one session's answer, as its bet record gave it.
type DetailRecord struct {
	Session, Bookie, Result, Error, Status string
	Amount                                 float64
}

// records are the bet records a kept detail stands for.
func (d *Detail) records() []apiclient.BetRecord {
	out := make([]apiclient.BetRecord, 0, len(d.Records))
	for _, r := range d.Records {
		out = append(out, apiclient.BetRecord{DisplayName: r.Session, Bookie: apiclient.String(r.Bookie),
			SubmitResult: r.Result, SubmitError: r.Error, Status: r.Status, Amount: apiclient.Money(r.Amount)})
	}
	return out
}

// detailOf keeps what a read of the detail says, at the answer of bots.
func detailOf(nd *apiclient.NotificationDetail, bots string) *Detail {
	d := &Detail{Bots: bots}
	for i := range nd.Bets {
		r := &nd.Bets[i]
		d.Records = append(d.Records, DetailRecord{Session: r.DisplayName, Bookie: string(r.Bookie), Result: r.SubmitResult,
			Error: r.SubmitError, Status: r.Status, Amount: float64(r.Amount)})
	}
	for _, l := range nd.Lines() {
		d.Lines = append(d.Lines, l.Log)
	}
	for _, p := range nd.SessionInfo {
		s := p.DisplayName
		if p.Bookie != "" {
			s += " (" + string(p.Bookie) + ")"
		}
		d.Sessions = append(d.Sessions, s)
	}
	return d
}

// Detail reads one notification's detail.
func (r *Reader) Detail(ctx context.Context, id int64) (*apiclient.NotificationDetail, error) {
	return r.Svc.NotificationDetail(ctx, id)
}

// detail reads b's records with the detail around them, once per answer:
// a detail kept for b at the same answer (a run or status read it before)
// stands in for the read. The records are applied to b either way. nil
// records and a nil error mean the read failed and is tried again on the
// next poll.
func (f *Follower) detail(ctx context.Context, b Bet) (*Detail, []apiclient.BetRecord, error) {
	if d := f.host.KeptDetail(b.Label()); d != nil && d.Bots == b.ReceivedBots() {
		d.kept = true
		recs := d.records()
		f.applyRecords(b, recs)
		return d, recs, nil
	}
	nd, err := f.read.Detail(ctx, b.NotifID())
	if err != nil {
		if stop := f.read.stop(ctx, err); stop != nil {
			return nil, nil, stop
		}
		f.book.Trouble(b, fmt.Sprintf("reading bet records: %v", err))
		return nil, nil, nil
	}
	f.applyRecords(b, nd.Bets)
	recs := nd.Bets
	if recs == nil {
		recs = []apiclient.BetRecord{}
	}
	return detailOf(nd, b.ReceivedBots()), recs, nil
}

// notPlaced ends b, on which nothing was accepted, with what its detail
// d (and recs, its records) says (end is the book's transition), and
// keeps d with the reason.
func (f *Follower) notPlaced(ctx context.Context, b Bet, d *Detail, recs []apiclient.BetRecord, lead string, end func(bet.Status, reason.Why)) error {
	status, why, err := f.whyNotPlaced(ctx, b, d, recs, lead)
	if err != nil {
		return err
	}
	if d.kept {
		// Said once, when it was read: a later run or status says the
		// same.
		if d.Why.Text != "" {
			why = d.Why
		}
		end(status, why)
		return nil
	}
	d.Why = why
	f.host.KeepDetail(b, d)
	end(status, why)
	return nil
}

// whyNotPlaced is the status and reason of b, on which nothing was
// accepted, as its detail says; lead begins the words of a bet every
// session refused.
func (f *Follower) whyNotPlaced(ctx context.Context, b Bet, d *Detail, recs []apiclient.BetRecord, lead string) (bet.Status, reason.Why, error) {
	if why, refused := everyRefused(recs, lead); refused {
		why.Text += linesWords(uncovered(d.Lines, recs))
		return bet.Failed, why, nil
	}
	if len(recs) > 0 {
		why := reason.Said(reason.NotTaken, "no session placed it before the race")
		why.Text += linesWords(uncovered(d.Lines, recs))
		return bet.NotTaken, why, nil
	}
	// No session made a record: the bots' lines, else their log, else
	// what the sessions were just before the create.
	if len(d.Lines) == 0 && !d.LogRead {
		if err := f.readBotLog(ctx, b, d); err != nil {
			return "", reason.Why{}, err
		}
	}
	why := reason.Said(reason.NotTaken, "no session placed it")
	code := linesReason(d.Lines)
	snapCode, snapWords := b.Blocked()
	if code == "" && snapCode != "" {
		code = snapCode
	}
	if code != "" {
		why.Code = code
	}
	switch {
	case len(d.Lines) > 0:
		why.Text += linesWords(d.Lines)
	case strings.TrimSpace(d.BotLog) != "":
		why.Text += "; the bots' log of it: " + excerpt(d.BotLog, maxLogWords)
	default:
		why.Text += " and the service said nothing of why"
	}
	if snapWords != "" {
		why.Text += "; " + snapWords
	}
	return bet.NotTaken, why, nil
}

// readBotLog reads the bots' log of b's notification into d, once. A
// failed read is said and not tried again: the reason stands without it.
func (f *Follower) readBotLog(ctx context.Context, b Bet, d *Detail) error {
	body, cut, err := f.read.Svc.BotLogBody(ctx, b.NotifID())
	if err != nil {
		if stop := f.read.stop(ctx, err); stop != nil {
			return stop
		}
		f.logf("%s: the bots' log of notification %d could not be read: %v", b.Name(), b.NotifID(), err)
	}
	d.LogRead, d.BotLog, d.BotLogCut = true, strings.ToValidUTF8(string(body), "\uFFFD"), cut
	return nil
}

// maxLogWords bounds how much of the bots' log a reason quotes: the rest
// is kept (the journal), not said.
const maxLogWords = 300

// excerpt is s, its first n runes and an ellipsis when longer.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// linesReason is the reason the bots' lines give, read with the one table
// of the service's refusal words: the first line that names one ("" when
// none does; a line it does not know is kept, not read).
func linesReason(lines []string) reason.Code {
	for _, l := range lines {
		if c := apiclient.RefusalReason(l); c != reason.SessionRefused {
			return c
		}
	}
	return ""
}

// uncovered are the lines that say more than the records' own words: a
// line holding a record's submit_error says it again.
func uncovered(lines []string, recs []apiclient.BetRecord) []string {
	var out []string
	for _, l := range lines {
		said := false
		for i := range recs {
			if e := strings.TrimSpace(recs[i].SubmitError); e != "" && strings.Contains(l, e) {
				said = true
				break
			}
		}
		if !said {
			out = append(out, l)
		}
	}
	return out
}

// linesWords is "; the bots' lines: a; b", or "" for none.
func linesWords(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return "; the bots' lines: " + strings.Join(lines, "; ")
}
