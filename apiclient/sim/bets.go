package sim

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

func (s *Service) recordJSON(r *betRecord) map[string]any {
	n := r.n
	var submit, resultTime, settled any
	if r.SubmitResult != "" {
		submit = stamp(r.CreatedAt.Add(-400 * time.Millisecond))
		resultTime = stamp(r.CreatedAt)
	}
	if !r.SettledAt.IsZero() {
		settled = stamp(r.SettledAt)
	}
	meeting := ""
	if n.race != nil {
		meeting = n.race.local(n.race.Start).Format("2006-01-02")
	}
	profitBy, profitAt := "", any(nil)
	if !r.SettledAt.IsZero() {
		profitBy, profitAt = "system", settled
	}
	return map[string]any{
		"id":                         r.ID,
		"display_name":               r.s.DisplayName,
		"amount":                     r.Amount,
		"current_odds":               r.Odds,
		"created_at":                 stamp(r.CreatedAt),
		"market":                     n.Market,
		"selection":                  n.Selection,
		"submit_time":                submit,
		"result_time":                resultTime,
		"submit_result":              r.SubmitResult,
		"submit_error":               r.SubmitError,
		"profit":                     r.Profit,
		"used_boost":                 false,
		"used_spg":                   false,
		"used_bonus":                 false,
		"transaction_id":             r.TxID,
		"bot_id":                     r.s.BotID,
		"is_deleted":                 false,
		"notified":                   true,
		"reporting_usage":            0,
		"sports":                     n.Sports,
		"owner":                      n.UserID,
		"bookie":                     r.s.BookieID,
		"notification":               n.ID,
		"transaction_min_created_at": resultTime,
		"meeting_date":               meeting,
		"profit_updated_by":          profitBy,
		"profit_updated_at":          profitAt,
		"settled_at":                 settled,
		"transaction_result":         r.TxResult,
		"status":                     r.Status,
		"user_notes":                 "",
		"label":                      n.Label,
	}
}

func (s *Service) userRecords(c *call) []*betRecord {
	var out []*betRecord
	for i := len(s.records) - 1; i >= 0; i-- {
		if s.records[i].n.UserID == c.user.ID {
			out = append(out, s.records[i])
		}
	}
	return out
}

// GET /bet/?page=&page_size=&label=: every record, newest first.
func (s *Service) listBets(c *call) {
	q := c.r.URL.Query()
	label, hasLabel := q.Get("label"), q.Has("label")
	items := []any{}
	for _, r := range s.userRecords(c) {
		if !hasLabel || r.n.Label == label {
			items = append(items, s.recordJSON(r))
		}
	}
	writeJSON(c.w, http.StatusOK, paginate(c, items))
}

// GET /bet/notification/{id}/: the new doc's object, or the old doc's bare
// array with Options.BareBetArrays.
func (s *Service) betsOfNotification(c *call) {
	n := s.notification(c)
	if n == nil {
		return
	}
	bets := []any{}
	info := []any{}
	for _, r := range n.records {
		bets = append(bets, s.recordJSON(r))
		info = append(info, map[string]any{
			"bookie": r.s.Bookie, "display_name": r.s.DisplayName, "odds": r.Odds, "market": n.Market,
			"runner": n.Selection, "amount": r.Amount, "bonus": "Cash", "bot_id": r.s.BotID,
		})
	}
	if s.opts.BareBetArrays {
		writeJSON(c.w, http.StatusOK, bets)
		return
	}
	logs := []any{}
	for _, l := range s.botLogs {
		if l.NotificationID == n.ID {
			logs = append(logs, map[string]any{"id": l.ID, "log": l.Log})
		}
	}
	writeJSON(c.w, http.StatusOK, map[string]any{
		"is_bet_group":                 0,
		"bot_logs":                     logs,
		"logs":                         []any{},
		"session_info":                 info,
		"bets":                         bets,
		"average_deduction_percentage": "0.00",
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
			fe := fieldErrors{}
			fe.add("ids", "Expected a list of integers.")
			writeJSON(c.w, http.StatusBadRequest, fe)
			return
		}
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id.String()] = true
	}
	out := []any{}
	for _, r := range s.userRecords(c) {
		if ids == nil || want[strconv.Itoa(r.ID)] {
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
func (s *Service) botLogList(c *call) { s.writeLogs(c, 0) }

// GET /bot/logs/{notification_id}/
func (s *Service) botLogsOfNotification(c *call) {
	if s.notification(c) == nil {
		return
	}
	s.writeLogs(c, c.id)
}

func (s *Service) writeLogs(c *call, notificationID int) {
	out := []any{}
	for i := len(s.botLogs) - 1; i >= 0; i-- {
		l := s.botLogs[i]
		if l.UserID != c.user.ID || (notificationID != 0 && l.NotificationID != notificationID) {
			continue
		}
		out = append(out, map[string]any{"id": l.ID, "notification": l.NotificationID, "bot_id": l.BotID, "log": l.Log, "created_at": stamp(l.At)})
	}
	writeJSON(c.w, http.StatusOK, out)
}

// GET /bet/codes/: a bare array of racing codes.
func (s *Service) betCodes(c *call) { writeJSON(c.w, http.StatusOK, codes) }

// GET /bet/markets/: a bare array of market names.
func (s *Service) betMarkets(c *call) { writeJSON(c.w, http.StatusOK, Markets) }
