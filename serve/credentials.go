package serve

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
)

// Credentials are the service's as the serving process keeps them fresh:
// *apiclient.Client's token, and whether it has an e-mail and a password
// to log in again with.
type Credentials interface {
	// Claims are the times of the token in use; an error before any.
	Claims() (apiclient.TokenClaims, error)
	CanLogIn() bool
	LogIn(ctx context.Context) error
	Refresh(ctx context.Context) error
}

// When credentials are renewed, and told of.
const (
	// loginBefore: with an e-mail and a password, a token with less left
	// is replaced by a new login.
	loginBefore = 48 * time.Hour
	// refreshWithin: the service refreshes a token only this soon after
	// its login (service-api.md, Authentication).
	refreshWithin = 7 * 24 * time.Hour
	// credentialsEvery is how often the token is looked at.
	credentialsEvery = time.Minute
)

// expiringAt are the times left at which a token-only account is told its
// token is expiring: once each.
var expiringAt = []struct {
	left  time.Duration
	words string
}{{7 * 24 * time.Hour, "7 days"}, {24 * time.Hour, "1 day"}}

// credentialWatch looks at the token once a minute while leading.
type credentialWatch struct {
	s *Server
	c Credentials

	mu    sync.Mutex
	next  time.Time
	left  time.Duration // what the token had left when last looked at
	known bool
}

// Left is what the token had left when last looked at; false when not
// known (no token read yet, or one that says nothing of its expiry).
func (w *credentialWatch) Left() (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.left, w.known
}

func (w *credentialWatch) check(ctx context.Context) {
	if w.c == nil || w.s.leading() == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	due := !now.Before(w.next)
	if due {
		w.next = now.Add(credentialsEvery)
	}
	w.mu.Unlock()
	if !due {
		return
	}
	claims, err := w.c.Claims()
	if err != nil || claims.ExpiresAt.IsZero() {
		return // no token read yet, or one that does not say
	}
	left := claims.ExpiresAt.Sub(now)
	logf := w.s.cfg.Logf
	switch {
	case w.c.CanLogIn() && left < loginBefore:
		lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := w.c.LogIn(lctx)
		cancel()
		if err != nil {
			logf("the token has %s left; logging in again failed: %v (tried again in a minute)", roundLeft(left), err)
		} else if c, err := w.c.Claims(); err == nil && !c.ExpiresAt.IsZero() {
			logf("the token had %s left: logged in again, the new one has %s", roundLeft(left), roundLeft(c.ExpiresAt.Sub(now)))
			left = c.ExpiresAt.Sub(now)
		}
	case !w.c.CanLogIn() && left < loginBefore && refreshable(claims, now):
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := w.c.Refresh(rctx)
		cancel()
		if err == nil {
			if c, err := w.c.Claims(); err == nil && !c.ExpiresAt.IsZero() {
				logf("the token had %s left: refreshed, the new one has %s", roundLeft(left), roundLeft(c.ExpiresAt.Sub(now)))
				left = c.ExpiresAt.Sub(now)
			}
		} else {
			logf("the token has %s left; refreshing it failed: %v", roundLeft(left), err)
		}
	}
	w.mu.Lock()
	w.left, w.known = left, true
	w.mu.Unlock()
	w.s.metrics.credentialsLeft(left)
	if w.c.CanLogIn() {
		return
	}
	for _, at := range expiringAt {
		if left <= at.left {
			w.s.announceAccount(engine.Announcement{
				Key:   fmt.Sprintf("token_expiring|%s|%s", at.words, digest(claims.ExpiresAt.UTC().Format(time.RFC3339))),
				Event: plan.EventTokenExpiring,
				Message: notify.Message{Event: plan.EventTokenExpiring, Status: "expiring", Time: now.UTC().Format(time.RFC3339),
					Message: fmt.Sprintf("the service's token expires at %s (%s left) and betplan has no e-mail and password to log in again: set a new BETPLAN_TOKEN and restart betplan serve",
						claims.ExpiresAt.UTC().Format(time.RFC3339), roundLeft(left))}})
		}
	}
}

// refreshable reports whether the service still refreshes the token: it
// does within 7 days of the original login.
func refreshable(c apiclient.TokenClaims, now time.Time) bool {
	login := c.OrigIssuedAt
	if login.IsZero() {
		login = c.IssuedAt
	}
	return !login.IsZero() && now.Sub(login) < refreshWithin
}

func roundLeft(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
	return d.Round(time.Minute).String()
}

// announceAccount raises an alert of the account through the plans'
// runs: each target once, through the first plan (by name) that has it.
func (s *Server) announceAccount(a engine.Announcement) {
	s.mu.Lock()
	defer s.mu.Unlock()
	taken := map[string]bool{}
	for _, sl := range s.sortedSlots() {
		sl.mu.Lock()
		v := sl.version
		sl.mu.Unlock()
		if v == nil {
			continue
		}
		var ids []string
		for _, t := range v.Targets {
			if t.Wants(a.Event) && !taken[t.ID()] {
				taken[t.ID()] = true
				ids = append(ids, t.ID())
			}
		}
		if len(ids) > 0 {
			b := a
			b.Message.Plan = sl.name
			b.Targets = ids
			sl.announce(b)
		}
	}
}
