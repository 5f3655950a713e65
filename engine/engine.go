// Package engine turns a checked plan into actions on the service and
// outcomes: it resolves races, decides when each bet is ready, creates
// every bet at most once (journal, lock, label look-ups) and follows each
// outcome until it is final.
package engine

import (
	"context"
	"errors"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/reason"
)

// Backend is the narrow set of calls the engine makes; *apiclient.Client
// satisfies it.
type Backend interface {
	ListRaces(ctx context.Context) ([]apiclient.Race, error)
	ListEvents(ctx context.Context) ([]apiclient.Event, error)
	GetEvent(ctx context.Context, id string) (*apiclient.Event, error)
	ListSessions(ctx context.Context) ([]apiclient.Session, error)
	NotificationsByLabel(ctx context.Context, label string) ([]apiclient.Notification, error)
	ListNotifications(ctx context.Context, opts apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error)
	CreateNotification(ctx context.Context, req *apiclient.CreateNotificationRequest) (*apiclient.CreateResult, error)
	BetsByNotification(ctx context.Context, id int64) ([]apiclient.BetRecord, error)
	NotificationDetail(ctx context.Context, id int64) (*apiclient.NotificationDetail, error)
	BotLogBody(ctx context.Context, id int64) ([]byte, int, error)
	ListBets(ctx context.Context, opts apiclient.ListBetsOptions) (*apiclient.Page[apiclient.BetRecord], error)
	CancelNotification(ctx context.Context, id int64) error
}

// Clock is the engine's time: the service's clock in tests and rehearsals.
type Clock = apiclient.Clock

// RealClock is the wall clock.
func RealClock() Clock { return apiclient.RealClock() }

// ErrNotConfirmed is a run the user declined at the prompt, before its
// first create.
var ErrNotConfirmed error = &RefusedError{Reason: "not confirmed at the prompt: nothing was created"}

// RefusedError means a safety check refused to go on (exit code 3).
type RefusedError struct {
	Reason string
	// Code is the refusal's reason code when a limit refused (reason.Limit):
	// a limit doing its job, not a failure to alert.
	Code reason.Code
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Refused says the error is a safety check's refusal.
func (e *RefusedError) Refused() bool { return true }

// TokenRefusedError is a 401 the client could not cure by logging in again
// (no e-mail and password, or the login refused too): no call can succeed,
// so the run ends at once, its report listing what it created, rather
// than polling in vain until poll.timeout (exit code 3).
type TokenRefusedError struct{ Err error }

func (e *TokenRefusedError) Error() string { return "refused: " + e.Err.Error() }
func (e *TokenRefusedError) Unwrap() error { return e.Err }

// Refused says the error is a refusal: the service will not serve the run.
func (e *TokenRefusedError) Refused() bool { return true }

// tokenRefused is err as a TokenRefusedError when it is a 401, else nil.
func tokenRefused(err error) error {
	if apiclient.IsUnauthorized(err) {
		return &TokenRefusedError{Err: err}
	}
	return nil
}

// IsRefused reports whether err is a refusal by a safety check (the lock
// held or lost, the plan stopped, its state out of reach): an error that
// says so with a Refused method.
func IsRefused(err error) bool {
	var r interface{ Refused() bool }
	return errors.As(err, &r) && r.Refused()
}

// isNotSent reports whether err proves the request never reached the
// service (no status, not ambiguous: a refused connection).
func isNotSent(err error) bool {
	var te *apiclient.TransportError
	return errors.As(err, &te) && !apiclient.IsAmbiguous(err)
}

// TipsterBackend is the calls of a tip package; *apiclient.Client
// satisfies it.
type TipsterBackend interface {
	PublishTips(ctx context.Context, apikey string, tips []apiclient.PublishTip) (*apiclient.TipsterAnswer, error)
	SendPrealert(ctx context.Context, apikey string) (*apiclient.TipsterAnswer, error)
}
