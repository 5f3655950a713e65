package sim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// betRecord is one session's attempt at a notification.
type betRecord struct {
	ID           int
	n            *notification
	s            *session
	Amount, Odds float64
	CreatedAt    time.Time
	SubmitResult string
	SubmitError  string
	Profit       float64
	Status       string
	TxResult     string
	TxID         string
	SettledAt    time.Time
	json         []byte // encoded, nil when stale
}

// botLog is a line a bot writes about a notification (GET /bot/logs/).
type botLog struct {
	ID             int
	NotificationID int
	UserID         int
	BotID          string
	Log            string
	At             time.Time
}

// userRecords lists the user's records, oldest first.
func (s *Service) userRecords(c *call) []*betRecord { return s.recsByUser[c.user.ID] }

// GET /bet/?page=&page_size=&label=: every record, newest first.
func (s *Service) listBets(c *call) {
	q := c.r.URL.Query()
	list := s.userRecords(c)
	if q.Has("label") {
		label := q.Get("label")
		var keep []*betRecord
		for _, r := range list {
			if r.n.Label == label {
				keep = append(keep, r)
			}
		}
		list = keep
	}
	writePage(c.w, paginate(c, len(list)), func(i int) []byte {
		return s.recordJSON(newestFirst(list, i))
	})
}

// GET /bet/notification/{id}/: the new doc's object, or the old doc's bare
// array with Options.BareBetArrays.
func (s *Service) betsOfNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	bets := make([]json.RawMessage, 0, len(n.records))
	for _, r := range n.records {
		bets = append(bets, s.recordJSON(r))
	}
	if s.opts.BareBetArrays {
		writeJSON(c.w, http.StatusOK, bets)
		return
	}
	info := make([]sessionInfoView, 0, len(n.records))
	for _, r := range n.records {
		info = append(info, sessionInfoView{
			Bookie: r.s.Bookie, DisplayName: r.s.DisplayName, Odds: r.Odds, Market: n.Market,
			Runner: n.Selection, Amount: r.Amount, Bonus: "Cash", BotID: r.s.BotID,
		})
	}
	logs := make([]logView, 0, len(n.logs))
	for _, i := range n.logs {
		l := s.botLogs[i]
		logs = append(logs, logView{ID: l.ID, Log: l.Log})
	}
	writeJSON(c.w, http.StatusOK, &betsOfNotificationView{
		IsBetGroup:                 0,
		BotLogs:                    logs,
		Logs:                       []any{},
		SessionInfo:                info,
		Bets:                       bets,
		AverageDeductionPercentage: "0.00",
	})
}

// POST /bet/search/ {"ids": [...]}: a bare array of the records found.
func (s *Service) searchBets(c *call) {
	m, ok := decodeBody(c)
	if !ok {
		return
	}
	var ids []json.Number
	if raw, has := m["ids"]; has {
		if err := json.Unmarshal(raw, &ids); err != nil {
			writeFieldError(c.w, "ids", "Expected a list of integers.")
			return
		}
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id.String()] = true
	}
	out := []json.RawMessage{}
	recs := s.userRecords(c)
	for i := range recs {
		if r := newestFirst(recs, i); ids == nil || want[strconv.Itoa(r.ID)] {
			out = append(out, s.recordJSON(r))
		}
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bet/summary/: our shape (the spec shows none): counts of records
// by outcome and the money totals.
func (s *Service) betSummary(c *call) {
	var won, lost, pending, failed, total int
	var staked, profit float64
	for _, r := range s.userRecords(c) {
		total++
		switch {
		case r.SubmitResult != "Success":
			failed++
		case r.Status != "SETTLED":
			pending++
			staked += r.Amount
		case r.Profit > 0:
			won++
			staked += r.Amount
		default:
			lost++
			staked += r.Amount
		}
		profit += r.Profit
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"total_bets": total, "won": won, "lost": lost, "pending": pending, "failed": failed,
		"total_stake": cents(staked), "total_profit": cents(profit),
	})
}

// GET /bot/logs/: a bare array, newest first.
func (s *Service) botLogList(c *call) {
	s.writeLogs(c, len(s.botLogs), func(i int) botLog { return s.botLogs[i] })
}

// GET /bot/logs/{notification_id}/
func (s *Service) botLogsOfNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	s.writeLogs(c, len(n.logs), func(i int) botLog { return s.botLogs[n.logs[i]] })
}

// writeLogs writes the user's bot logs among at(0) … at(count-1) (oldest
// first), newest first.
func (s *Service) writeLogs(c *call, count int, at func(i int) botLog) {
	out := []botLogView{}
	for i := count - 1; i >= 0; i-- {
		if l := at(i); l.UserID == c.user.ID {
			out = append(out, botLogView{ID: l.ID, Notification: l.NotificationID, BotID: l.BotID, Log: l.Log, CreatedAt: stamp(l.At)})
		}
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bet/codes/: a bare array of racing codes.
func (s *Service) betCodes(c *call) { writeJSON(c.w, http.StatusOK, codes) }

// GET /bet/markets/: a bare array of market names.
func (s *Service) betMarkets(c *call) { writeJSON(c.w, http.StatusOK, Markets) }
