package engine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reason"
)

// What will stop a session betting, as betplan can tell from the list of
// sessions alone (GET /bookieaccount/, no other request): its bot
// stopped, its bot not logged in to the bookmaker (login_error), a stake
// outside the bookmaker's min_bet_amount and max_bet_amount. The run
// says it before its first create and doctor says it too; neither
// refuses for it (the service does not say whether a bot caps a stake out
// of range or refuses the slip). The same reading, taken just before a
// create, is the reason of a bet no session answered at all.

// sessionBlock is one session that will not bet a bet, and why.
type sessionBlock struct {
	Session string      `json:"session"`
	Code    reason.Code `json:"code"`
	Words   string      `json:"words"`
}

func (b sessionBlock) String() string { return b.Session + ": " + b.Words }

// targets reports whether a bet with terms t reaches session s (every
// session when it targets none).
func (t stakeTerms) targets(s *apiclient.Session) bool {
	if t.targetSession != "" && !listed(t.targetSession, strconv.FormatInt(int64(s.ID), 10)) {
		return false
	}
	return t.targetBot == "" || string(s.BotID) == t.targetBot
}

// sessionState says what stops s betting anything now: its bot stopped,
// or not logged in ("" when neither), with the reason's code. since is
// how a time of the command's own is shown.
func sessionState(s *apiclient.Session, since func(time.Time) string) (reason.Code, string) {
	if !s.BotRunning {
		return reason.NoBot, "bot stopped"
	}
	if s.LoginError != nil && strings.TrimSpace(*s.LoginError) != "" {
		words := "logged out"
		if t := s.LastLoginAttempt.Time; !t.IsZero() && since != nil {
			words += " since " + since(t)
		}
		return reason.LoggedOut, fmt.Sprintf("%s: '%s'", words, strings.TrimSpace(*s.LoginError))
	}
	return "", ""
}

// stakeBlock says whether a stake of amount per session is outside s's
// bookmaker bounds ("" when within them, or no bound is set).
func stakeBlock(s *apiclient.Session, amount float64) string {
	lo, hi := s.StakeBounds()
	switch {
	case amount <= 0:
		return ""
	case hi > 0 && amount > hi:
		return fmt.Sprintf("max stake %s, the bet's %s", wholeUSD(hi), wholeUSD(amount))
	case lo > 0 && amount < lo:
		return fmt.Sprintf("min stake %s, the bet's %s", wholeUSD(lo), wholeUSD(amount))
	}
	return ""
}

// perSessionStake is the stake each session would be asked to place for
// a bet of terms t and amount: 0 when that is not known (a target profit
// sized by the bot from the odds, a total split across the sessions).
func perSessionStake(t stakeTerms, amount float64) float64 {
	if plan.AmountFieldFor(t.risk.Type) != plan.AmountStake || t.total {
		return 0
	}
	return amount
}

// blockedBefore is what the sessions as read say of a bet about to be
// created: each session it targets that will not bet it, and why. all
// says no targeted session will: a bet nothing answers is then explained
// by them. A bet that targets no session of the account is one block.
func blockedBefore(sessions []apiclient.Session, t stakeTerms, amount float64, since func(time.Time) string) (blocks []sessionBlock, all bool) {
	stake := perSessionStake(t, amount)
	usable, reached := 0, 0
	for i := range sessions {
		s := &sessions[i]
		if !t.targets(s) {
			continue
		}
		reached++
		if code, words := sessionState(s, since); code != "" {
			blocks = append(blocks, sessionBlock{Session: s.Name(), Code: code, Words: words})
			continue
		}
		if words := stakeBlock(s, stake); words != "" {
			blocks = append(blocks, sessionBlock{Session: s.Name(), Code: reason.StakeLimit, Words: words})
			continue
		}
		usable++
	}
	if reached == 0 {
		who := "the account has no bookmaker sessions"
		switch {
		case t.targetSession != "":
			who = "no session of the account is its target_session " + t.targetSession
		case t.targetBot != "":
			who = "no session of the account runs on its target_bot " + t.targetBot
		}
		return []sessionBlock{{Session: "", Code: reason.NoBot, Words: who}}, true
	}
	return blocks, usable == 0
}

// blocksWhy is the reason blocks give a bet nothing answered: the code
// they share (logged out before a stopped bot before a stake bound, when
// they differ) and each session's words.
func blocksWhy(blocks []sessionBlock) reason.Why {
	if len(blocks) == 0 {
		return reason.Why{}
	}
	rank := map[reason.Code]int{reason.LoggedOut: 0, reason.NoBot: 1, reason.StakeLimit: 2}
	code := blocks[0].Code
	words := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if r, ok := rank[b.Code]; ok && r < rank[code] {
			code = b.Code
		}
		if b.Session == "" {
			words = append(words, b.Words)
		} else {
			words = append(words, b.String())
		}
	}
	return reason.Said(code, "before the create, no session it targets could bet it: "+strings.Join(words, "; "))
}

// wholeUSD is $50 or $2.50, as a bookmaker writes a stake bound.
func wholeUSD(v float64) string {
	if v == float64(int64(v)) {
		return "$" + strconv.FormatInt(int64(v), 10)
	}
	return fmt.Sprintf("$%.2f", v)
}

// sessionReport is one session the plan's bets reach, as the run's check
// before its first create says it.
type sessionReport struct {
	session *apiclient.Session
	bets    []string // the bets that reach it, by id
	// over and under count the races of bets whose stake is outside the
	// bookmaker's bounds, and the stake furthest out.
	over, under           int
	overStake, underStake float64
}

// checkSessions says, for each session the plan's waiting bets reach,
// what will stop it betting them: a bot stopped, a bot not logged in, a
// stake outside its bookmaker's bounds ("Ladbrokes 2: max stake $50, plan
// bets $80 on 3 races"), or that nothing betplan can see will. One line a
// session, in the account's order; it refuses nothing.
func checkSessions(sessions []apiclient.Session, insts []*instance, since func(time.Time) string) []string {
	reports := make([]*sessionReport, len(sessions))
	for _, in := range insts {
		if in.status != StatusWaiting || in.notifID != 0 || in.bet == nil {
			continue
		}
		t := betTerms(in.bet)
		stake := perSessionStake(t, in.amount)
		for i := range sessions {
			s := &sessions[i]
			if !t.targets(s) {
				continue
			}
			r := reports[i]
			if r == nil {
				r = &sessionReport{session: s}
				reports[i] = r
			}
			if len(r.bets) == 0 || r.bets[len(r.bets)-1] != in.bet.ID {
				r.bets = append(r.bets, in.bet.ID)
			}
			lo, hi := s.StakeBounds()
			switch {
			case stake <= 0:
			case hi > 0 && stake > hi:
				r.over++
				r.overStake = max(r.overStake, stake)
			case lo > 0 && stake < lo:
				r.under++
				if r.underStake == 0 || stake < r.underStake {
					r.underStake = stake
				}
			}
		}
	}
	var lines []string
	for _, r := range reports {
		if r == nil {
			continue
		}
		s := r.session
		var what []string
		if _, words := sessionState(s, since); words != "" {
			what = append(what, words)
		}
		lo, hi := s.StakeBounds()
		if r.over > 0 {
			what = append(what, fmt.Sprintf("max stake %s, plan bets %s on %d %s", wholeUSD(hi), wholeUSD(r.overStake), r.over, plural(r.over, "race", "races")))
		}
		if r.under > 0 {
			what = append(what, fmt.Sprintf("min stake %s, plan bets %s on %d %s", wholeUSD(lo), wholeUSD(r.underStake), r.under, plural(r.under, "race", "races")))
		}
		sort.Strings(r.bets)
		bets := plural(len(r.bets), "bet ", "bets ") + strings.Join(r.bets, ", ")
		if len(what) == 0 {
			lines = append(lines, fmt.Sprintf("session %d %s: nothing betplan can see stops it betting (%s; bot running, logged in%s)", int64(s.ID), s.Name(), bets, boundsWords(lo, hi)))
			continue
		}
		lines = append(lines, fmt.Sprintf("session %d %s: %s (%s); warned, not refused: the service does not say what its bot does", int64(s.ID), s.Name(), strings.Join(what, "; "), bets))
	}
	return lines
}

// boundsWords is ", stakes $1 to $500" (or one bound, or nothing).
func boundsWords(lo, hi float64) string {
	switch {
	case lo > 0 && hi > 0:
		return fmt.Sprintf(", stakes %s to %s", wholeUSD(lo), wholeUSD(hi))
	case hi > 0:
		return ", stakes up to " + wholeUSD(hi)
	case lo > 0:
		return ", stakes from " + wholeUSD(lo)
	}
	return ""
}
