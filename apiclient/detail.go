package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
)

// What the service says of one notification beyond its bet records: the
// bots' log lines and each session's part (service facts §4.1, variant
// B), and the bots' own log of it (GET /bot/logs/{id}/). They are the
// service's words on why a bet was not placed; betplan keeps them as they
// came.

// LogLine is one line of a notification's bot_logs or logs ([{id, log}]).
// A line in another shape is kept whole as its Log.
type LogLine struct {
	ID  Int    `json:"id"`
	Log string `json:"log"`
}

// UnmarshalJSON reads {id, log}, a bare string, or anything else as its
// JSON text: an unknown line is kept, never dropped.
func (l *LogLine) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if s, ok := unquoteScalar(b); ok && len(b) > 0 && b[0] == '"' {
		*l = LogLine{Log: s}
		return nil
	}
	var obj struct {
		ID  json.RawMessage `json:"id"`
		Log json.RawMessage `json:"log"`
	}
	if len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &obj) == nil && obj.Log != nil {
		var out LogLine
		if s, ok := unquoteScalar(obj.Log); ok {
			out.Log = s
		} else {
			out.Log = string(bytes.TrimSpace(obj.Log))
		}
		if obj.ID != nil && out.ID.UnmarshalJSON(obj.ID) != nil {
			out.ID = 0
		}
		*l = out
		return nil
	}
	*l = LogLine{Log: string(b)}
	return nil
}

// SessionPart is one entry of a notification's session_info: a session's
// part in it (service facts §4.1).
type SessionPart struct {
	Bookie      String `json:"bookie"`
	DisplayName string `json:"display_name"`
	Odds        Float  `json:"odds"`
	Market      string `json:"market"`
	Runner      String `json:"runner"`
	Amount      Money  `json:"amount"`
	Bonus       string `json:"bonus"`
	BotID       String `json:"bot_id"`
}

// NotificationDetail is GET /bet/notification/{id}/ whole: the bet
// records and, in the object variant, the bots' log lines and the
// sessions' parts. The bare-array variant has the records alone.
type NotificationDetail struct {
	Bets        []BetRecord   `json:"bets"`
	BotLogs     []LogLine     `json:"bot_logs,omitempty"`
	Logs        []LogLine     `json:"logs,omitempty"`
	SessionInfo []SessionPart `json:"session_info,omitempty"`
}

// Lines are the detail's log lines, bot_logs first, then logs.
func (d *NotificationDetail) Lines() []LogLine {
	out := make([]LogLine, 0, len(d.BotLogs)+len(d.Logs))
	return append(append(out, d.BotLogs...), d.Logs...)
}

// NotificationDetail returns the bet records of one notification with
// the bots' log lines and the sessions' parts. The body is a bare array
// (old doc: records only) or an object with "bets" (new doc); a list
// under "results" is read too. A line or part that does not read as
// documented is kept as text or left zero, never an error: only the
// records must read.
// GET /bet/notification/{id}/
func (c *Client) NotificationDetail(ctx context.Context, id int64) (*NotificationDetail, error) {
	b, req, err := c.call(ctx, http.MethodGet, idPath("/bet/notification/%s/", id), nil)
	if err != nil {
		return nil, err
	}
	d := &NotificationDetail{}
	err = c.list(req, b, func(b []byte) (err error) {
		d, err = decodeDetail(b)
		return err
	})
	return d, err
}

// decodeDetail reads a notification's detail in either variant.
func decodeDetail(body []byte) (*NotificationDetail, error) {
	bets, err := decodeList[BetRecord](body, "bets", "results")
	if err != nil {
		return nil, err
	}
	d := &NotificationDetail{Bets: bets}
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return d, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, err
	}
	d.BotLogs = logLines(obj["bot_logs"])
	d.Logs = logLines(obj["logs"])
	var parts []json.RawMessage
	if json.Unmarshal(obj["session_info"], &parts) == nil {
		for _, raw := range parts {
			var p SessionPart
			if json.Unmarshal(raw, &p) == nil {
				d.SessionInfo = append(d.SessionInfo, p)
			}
		}
	}
	return d, nil
}

// logLines reads a list of log lines; anything but a list is one line of
// its JSON text (kept, not dropped), and null or absent is none.
func logLines(raw json.RawMessage) []LogLine {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return []LogLine{{Log: string(raw)}}
	}
	out := make([]LogLine, 0, len(items))
	for _, it := range items {
		var l LogLine
		_ = l.UnmarshalJSON(it) // never fails: a line it cannot read is its text
		out = append(out, l)
	}
	return out
}

// MaxBotLogBytes is the most of a notification's bot log body
// BotLogBody keeps.
const MaxBotLogBytes = 4 << 10

// BotLogBody returns the body of the bots' log of one notification as it
// came, its first MaxBotLogBytes: its shape is not shown (service API,
// "Other endpoints"), so nothing is read from it. cut says how many bytes
// were left off.
// GET /bot/logs/{notification_id}/
func (c *Client) BotLogBody(ctx context.Context, id int64) (body []byte, cut int, err error) {
	b, _, err := c.call(ctx, http.MethodGet, idPath("/bot/logs/%s/", id), nil)
	if err != nil {
		return nil, 0, err
	}
	if len(b) > MaxBotLogBytes {
		return b[:MaxBotLogBytes:MaxBotLogBytes], len(b) - MaxBotLogBytes, nil
	}
	return b, 0, nil
}

// AccountSettings is a session's account_settings (GET /bookieaccount/):
// the bookmaker account's own stake bounds among them. A bound that is
// absent, null or 0 is not set.
type AccountSettings struct {
	AutoLogin      Bool   `json:"auto_login"`
	LoginFrequency Float  `json:"login_frequency"`
	MaxBetAmount   *Float `json:"max_bet_amount"`
	MinBetAmount   *Float `json:"min_bet_amount"`
	UseBonusFirst  Bool   `json:"use_bonus_first"`
}

// Settings decodes the session's account_settings; false when it has
// none, or they do not read.
func (s *Session) Settings() (AccountSettings, bool) {
	var a AccountSettings
	raw := bytes.TrimSpace(s.AccountSettings)
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &a) != nil {
		return AccountSettings{}, false
	}
	return a, true
}

// StakeBounds are the session's bookmaker minimum and maximum stake from
// its account_settings; 0 where a bound is not set.
func (s *Session) StakeBounds() (min, max float64) {
	a, ok := s.Settings()
	if !ok {
		return 0, 0
	}
	if a.MinBetAmount != nil && *a.MinBetAmount > 0 {
		min = float64(*a.MinBetAmount)
	}
	if a.MaxBetAmount != nil && *a.MaxBetAmount > 0 {
		max = float64(*a.MaxBetAmount)
	}
	return min, max
}

// Name is how messages name the session: its display name, else its id.
func (s *Session) Name() string {
	if s.DisplayName != "" {
		return s.DisplayName
	}
	return "session " + strconv.FormatInt(int64(s.ID), 10)
}
