package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
)

// DefaultTipsterAPIKey is the tip package key the simulated service
// accepts when Options.TipsterAPIKey is not set. It opens nothing but the
// simulator's one package.
const DefaultTipsterAPIKey = "SIMPACKAGEKEY001"

// The tip package. Its tipster is the default user; its subscribers are
// the default user too (a tipster follows their own package, as the
// service allows, and so sees what subscribers' bots receive) and
// subscriber@example.com (user 614, no sessions of its own). A published
// tip reaches every subscriber as a "Serial" notification their bots
// take up like any other, staked at amount_units × unitStake.
const (
	tipsterUserID    = 612
	subscriberUserID = 614
	unitStake        = 5.0
)

// tipsterState is what the package has published and pre-alerted.
type tipsterState struct {
	publishes [][]PublishedTip
	prealerts []Prealert
	// units and creators of the notifications tips fanned out to, by id.
	units   map[int]float64
	creator map[int]int
}

// PublishedTip is one tip of a publish call, as the service took it.
type PublishedTip struct {
	At          time.Time // sim time of the call
	Competition string
	Code        string
	EventNumber int
	Market      string
	Selection   string
	AmountUnits float64
	Odds        float64
	MaxOdds     float64
	Bookies     string
	UseBonus    bool
	Confidence  string
	Analysis    string
	RaceStart   time.Time
	// Notifications are the ids of the notifications the tip fanned out
	// to, one per subscriber.
	Notifications []int
}

// Prealert is one pre-alert the package sent.
type Prealert struct {
	At   time.Time
	Path string
}

// Publishes returns every accepted publish call in order, each with its
// tips: a test counts how often a tip went out.
func (s *Service) Publishes() [][]PublishedTip {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]PublishedTip, len(s.tipster.publishes))
	for i, p := range s.tipster.publishes {
		out[i] = slices.Clone(p)
	}
	return out
}

// PublishedTips returns every tip published, over all calls, in order.
func (s *Service) PublishedTips() []PublishedTip {
	var out []PublishedTip
	for _, p := range s.Publishes() {
		out = append(out, p...)
	}
	return out
}

// Prealerts returns every pre-alert sent, in order.
func (s *Service) Prealerts() []Prealert {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tipster.prealerts)
}

func (s *Service) checkPackageKey(c *call, m map[string]json.RawMessage, refused int) bool {
	key, _ := str(m, "apikey")
	if key == "" {
		writeFieldError(c.w, "apikey", "This field is required.")
		return false
	}
	if key != s.opts.TipsterAPIKey {
		msg := "Invalid package API key."
		if refused == http.StatusNotFound {
			msg = "API key not valid."
		}
		writeError(c.w, refused, msg)
		return false
	}
	return true
}

// POST /pick/tipster/publish/ {"apikey", "tips": [...]}, the flat variant
// (facts §9.1): every field of every tip is required; confidence and
// analysis (from the nested variant) are kept when sent. The whole call is
// checked before any tip is taken, then each tip fans out to the
// package's subscribers. No duplicate detection: the same tips sent twice
// reach subscribers twice.
func (s *Service) publishTips(c *call) {
	m, ok := decodeBody(c)
	if !ok || !s.checkPackageKey(c, m, http.StatusForbidden) {
		return
	}
	var raw []map[string]json.RawMessage
	if t, has := m["tips"]; !has || json.Unmarshal(t, &raw) != nil || len(raw) == 0 {
		writeFieldError(c.w, "tips", "A non-empty list of tips is required.")
		return
	}
	tips := make([]PublishedTip, 0, len(raw))
	races := make([]*race, 0, len(raw))
	for i, t := range raw {
		fe := fieldErrors{}
		var tip PublishedTip
		text := func(key string, dst *string) {
			if v, _ := str(t, key); strings.TrimSpace(v) != "" {
				*dst = v
				return
			}
			fe.add(fmt.Sprintf("tips[%d].%s", i, key), "This field is required.")
		}
		number := func(key string, dst *float64) {
			v, present, ok := num(t, key)
			switch {
			case !present:
				fe.add(fmt.Sprintf("tips[%d].%s", i, key), "This field is required.")
			case !ok || v <= 0:
				fe.add(fmt.Sprintf("tips[%d].%s", i, key), "A valid positive number is required.")
			}
			*dst = v
		}
		text("competition", &tip.Competition)
		text("code", &tip.Code)
		text("market", &tip.Market)
		text("selection", &tip.Selection)
		text("bookies", &tip.Bookies)
		var en float64
		number("event_number", &en)
		if en != math.Trunc(en) {
			fe.add(fmt.Sprintf("tips[%d].event_number", i), "A valid integer is required.")
		}
		tip.EventNumber = int(en)
		number("amount_units", &tip.AmountUnits)
		number("odds", &tip.Odds)
		number("max_odds", &tip.MaxOdds)
		if b, has := t["use_bonus"]; !has || (string(b) != "true" && string(b) != "false") {
			fe.add(fmt.Sprintf("tips[%d].use_bonus", i), "Must be a valid boolean.")
		}
		tip.UseBonus = boolean(t, "use_bonus")
		tip.Confidence, _ = str(t, "confidence")
		tip.Analysis, _ = str(t, "analysis")
		if len(fe) > 0 {
			writeJSON(c.w, http.StatusBadRequest, fe)
			return
		}
		if !validSelection(tip.Market, tip.Selection) {
			writeError(c.w, http.StatusNotAcceptable, fmt.Sprintf("Invalid data syntax: selection %q.", tip.Selection))
			return
		}
		r := s.world.findRace(c.now, tip.Competition, tip.Code, tip.EventNumber, "")
		if !slices.Contains(Markets, tip.Market) || r == nil || !c.now.Before(r.off()) {
			writeError(c.w, http.StatusNotFound, "Competition or market unavailable.")
			return
		}
		tip.At, tip.RaceStart = c.now, r.Start
		tips = append(tips, tip)
		races = append(races, r)
	}
	for i := range tips {
		for _, uid := range []int{tipsterUserID, subscriberUserID} {
			n := s.fanOut(&tips[i], races[i], uid, c.now)
			tips[i].Notifications = append(tips[i].Notifications, n.ID)
		}
	}
	s.tipster.publishes = append(s.tipster.publishes, tips)
	writeJSON(c.w, http.StatusOK, map[string]string{"status": "Success"})
}

// validSelection is the selection syntax bots can read: a runner number,
// or R:P pairs for Same Race Multi.
func validSelection(market, sel string) bool {
	n := &notification{Market: market, Selection: sel}
	_, err := parseSelection(n)
	return err == ""
}

// fanOut makes the notification a subscriber's bots receive for a tip.
func (s *Service) fanOut(t *PublishedTip, r *race, userID int, now time.Time) *notification {
	n := &notification{
		ID: s.newID(), TipID: s.newID(), UserID: userID, CreatedAt: now,
		Type: "Serial", Sports: "RACING",
		Competition: r.Venue.Names[0], Code: r.Venue.Code, EventNumber: r.EventNumber,
		Market: t.Market, Selection: t.Selection,
		Stake: cents(t.AmountUnits * unitStake), Odds: t.Odds,
		MaxOdds: t.MaxOdds, CheckMaxOdds: true,
		BookiesOverride: t.Bookies, Note: t.Analysis,
		OriginInfo: "Tip package", race: r,
	}
	if s.tipster.units == nil {
		s.tipster.units, s.tipster.creator = map[int]float64{}, map[int]int{}
	}
	s.tipster.units[n.ID] = t.AmountUnits
	s.tipster.creator[n.ID] = tipsterUserID
	s.fire(n, now)
	s.addNotification(n)
	return n
}

// tipOf returns the amount units and creator a notification's tip shows:
// a fanned-out tip's own, else 1 unit by the notification's user.
func (s *Service) tipOf(n *notification) (units float64, creator int) {
	if u, ok := s.tipster.units[n.ID]; ok {
		return u, s.tipster.creator[n.ID]
	}
	return 1, n.UserID
}

// POST /pick/tipster/message/ (spec) and /pick/tipster/prealert/ (docs)
// {"apikey"}: a wrong key is a 404, as the docs say. With
// Options.PrealertDocsOnly the spec's path does not exist.
func (s *Service) preAlert(c *call) {
	path := strings.TrimSuffix(c.r.URL.Path, "/") + "/"
	if s.opts.PrealertDocsOnly && strings.HasSuffix(path, "/message/") {
		writeError(c.w, http.StatusNotFound, "Not found.")
		return
	}
	m, ok := decodeBody(c)
	if !ok || !s.checkPackageKey(c, m, http.StatusNotFound) {
		return
	}
	s.tipster.prealerts = append(s.tipster.prealerts, Prealert{At: c.now, Path: path})
	writeJSON(c.w, http.StatusOK, map[string]string{"status": "Success"})
}
