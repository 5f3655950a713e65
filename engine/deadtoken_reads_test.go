package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/engine"
)

// TestDeadTokenAtABulkReadEndsTheRun: a token that dies at one of the
// bulk reads (the batched label check before creates, the bet records
// read after a placement) ends the run there, as a refused poll or create
// does: a TokenRefusedError, the bets created kept in the result, and no
// request after the first refused one. Before, those reads logged the 401
// and went on, one refused call after another.
func TestDeadTokenAtABulkReadEndsTheRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		list    int // the token dies at this read of the notification list (0: at the first read of bet records)
		created int // bets created before the token dies
	}{
		// The first list read is the recovery scan at the start; the
		// second, the label check of the two bets due in the same tick.
		{"label check", 2, 0},
		{"bet records", 0, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			a := w.race("Galloping", 0)
			// Two bets on one race: due in the same tick, so their labels
			// are checked in one list read.
			p := w.twoBetPlanOn("dead-reads", "", a, a)
			opts := w.options(w.client())
			if tt.list > 0 {
				opts.Backend = &expireAtList{Backend: opts.Backend, svc: w.svc, at: tt.list}
			} else {
				w.svc.InjectFault(sim.Fault{Method: "GET", Path: "/bet/", Kind: sim.ExpireTokens, Times: 1})
			}
			res, err := engine.Run(context.Background(), p, opts)
			var refused *engine.TokenRefusedError
			require.True(t, errors.As(err, &refused), "err %v", err)
			require.NotNil(t, res)
			created := 0
			for _, b := range res.Bets {
				if b.NotificationID != 0 {
					created++
				}
			}
			assert.Equal(t, tt.created, created)
			assert.Equal(t, tt.created, w.svc.NotificationCount())
			var after []string
			dead := false
			for _, r := range w.svc.Requests() {
				if dead {
					after = append(after, fmt.Sprintf("%s %s %d", r.Method, r.Path, r.Status))
				}
				dead = dead || r.Status == http.StatusUnauthorized
			}
			assert.Empty(t, after, "requests after the first 401")
			if t.Failed() {
				for _, r := range w.svc.Requests() {
					t.Log(r.Method, r.Path, r.Query, r.Status, r.Fault)
				}
			}
		})
	}
}

// expireAtList expires every token of the simulated service at the
// at-th read of the notification list.
type expireAtList struct {
	engine.Backend
	svc   *sim.Service
	n, at int
}

func (b *expireAtList) ListNotifications(ctx context.Context, o apiclient.ListNotificationsOptions) (*apiclient.Page[apiclient.Notification], error) {
	if b.n++; b.n == b.at {
		b.svc.InjectFault(sim.Fault{Method: "GET", Path: "/notification/", Kind: sim.ExpireTokens, Times: 1})
	}
	return b.Backend.ListNotifications(ctx, o)
}
