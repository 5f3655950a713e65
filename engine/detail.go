package engine

import (
	"github.com/betplan/betplan/engine/follow"
	"github.com/betplan/betplan/reason"
)

// The details of notifications read to say why a bet was not placed
// (engine/follow's reasons.go), as the journal keeps them: one
// detail_read entry a bet, written by the run (or status) that read it.

// maxDetailLineBytes bounds the bots' lines one detail_read entry keeps:
// a journal record has a bound (state.MaxRecord), a notification's lines
// none. The lines past it are counted, not kept.
const maxDetailLineBytes = 256 << 10

// detailEntry is the journal's form of d.
func detailEntry(d *follow.Detail) *journalDetail {
	j := &journalDetail{Bots: d.Bots, Sessions: d.Sessions, LogRead: d.LogRead, BotLog: d.BotLog, BotLogCut: d.BotLogCut, Reason: d.Why.Text}
	for _, r := range d.Records {
		j.Records = append(j.Records, detailRecord{Session: r.Session, Bookie: r.Bookie, Result: r.Result, Error: r.Error, Status: r.Status, Amount: r.Amount})
	}
	size := 0
	for i, l := range d.Lines {
		if size += len(l); size > maxDetailLineBytes {
			j.LinesCut = len(d.Lines) - i
			break
		}
		j.Lines = append(j.Lines, l)
	}
	return j
}

// detail is the follower's form of what the journal keeps.
func (j *journalDetail) detail(code string) *follow.Detail {
	d := &follow.Detail{Bots: j.Bots, Lines: j.Lines, Sessions: j.Sessions, LogRead: j.LogRead, BotLog: j.BotLog, BotLogCut: j.BotLogCut}
	for _, r := range j.Records {
		d.Records = append(d.Records, follow.DetailRecord{Session: r.Session, Bookie: r.Bookie, Result: r.Result, Error: r.Error, Status: r.Status, Amount: r.Amount})
	}
	d.Why.Code, d.Why.Text = reason.Code(code), j.Reason
	return d
}

// KeptDetail is the detail of label a run or status read: its journal's
// last detail_read entry, or one this status read and could not write
// yet.
func (h *followHost) KeptDetail(label string) *follow.Detail {
	if e, ok := h.details[label]; ok {
		return e.Detail.detail(e.Code)
	}
	if h.hold.journal == nil {
		return nil
	}
	if s := h.hold.journal.State(label); s != nil && s.Detail != nil {
		return s.Detail.detail(string(s.DetailCode))
	}
	return nil
}

// KeepDetail journals d, read for b (detail_read). A status, which reads
// the journal without the lock, keeps it until KeepPlacements writes it.
// A write that fails costs only a read: the next run reads it again.
func (h *followHost) KeepDetail(v follow.Bet, d *follow.Detail) {
	e := journalEntry{Op: opDetailRead, Label: v.Label(), NotificationID: v.NotifID(), Code: string(d.Why.Code), Detail: detailEntry(d)}
	if j := h.hold.journal; j != nil && j.writable() {
		if err := j.Record(e); err == nil {
			return
		}
	}
	if h.details == nil {
		h.details = map[string]journalEntry{}
	}
	h.details[e.Label] = e
}
