package cli

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingHook is a loopback webhook that counts the POSTs it reads and
// the Referer headers it is sent, answering each with answer.
type countingHook struct {
	srv      *httptest.Server
	mu       sync.Mutex
	posts    int
	referers []string
	answer   func(rw http.ResponseWriter, r *http.Request)
}

func newCountingHook(t *testing.T) *countingHook {
	h := &countingHook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		h.mu.Lock()
		if r.Method == http.MethodPost {
			h.posts++
		}
		if ref := r.Header.Get("Referer"); ref != "" {
			h.referers = append(h.referers, ref)
		}
		answer := h.answer
		h.mu.Unlock()
		if answer != nil {
			answer(rw, r)
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *countingHook) seen() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.posts, append([]string(nil), h.referers...)
}

// TestAlertsFollowNoRedirect: a webhook that answers 307 or 308, to itself
// or to another loopback port, is sent the alert once (by notify test and
// by a run's summary alike); nothing reaches the other port, no Referer
// carries the webhook's secret path, and the alert is listed as not
// delivered, "the target redirects", by scheme and host only, never
// again.
func TestAlertsFollowNoRedirect(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		for _, to := range []string{"itself", "another port"} {
			for _, how := range []string{"notify test", "run"} {
				t.Run(fmt.Sprintf("%d to %s by %s", status, to, how), func(t *testing.T) {
					hook, other := newCountingHook(t), newCountingHook(t)
					hook.answer = func(rw http.ResponseWriter, r *http.Request) {
						loc := hook.srv.URL + r.URL.Path
						if to != "itself" {
							loc = other.srv.URL + "/elsewhere"
						}
						http.Redirect(rw, r, loc, status)
					}
					w := newCrashWorld(t, 1)
					w.notifyHook("summary, run_failed")
					env := "HOOK=" + hook.srv.URL + secretPath
					origin := hook.srv.URL

					var out string
					if how == "notify test" {
						stdout, stderr, code := betplanExec(t, w.dir, []string{env}, "notify", "test", w.plan)
						out = stdout + stderr
						assert.Equal(t, exitFailed, code, out)
						assert.Contains(t, stdout, "FAILED  "+origin+"/…: not delivered: the target redirects ("+origin+")")
					} else {
						cmd := w.betplan("")
						cmd.Env = append(cmd.Env, env)
						b, err := cmd.CombinedOutput()
						out = string(b)
						require.NoError(t, err, out)
						rep := readReport(t, filepath.Join(w.dir, "report"))
						require.Len(t, rep.Undelivered, 1, "%+v", rep.Undelivered)
						u := rep.Undelivered[0]
						assert.Equal(t, "summary", u.Event)
						assert.Equal(t, "not delivered", u.Outcome)
						assert.Contains(t, out, "the target redirects ("+origin+"); not sent again")

						// A later run does not send it again.
						cmd = w.betplan("")
						cmd.Env = append(cmd.Env, env)
						b, err = cmd.CombinedOutput()
						out += string(b)
						require.NoError(t, err, out)
					}
					posts, refs := hook.seen()
					assert.Equal(t, 1, posts, "the webhook is sent the alert once")
					otherPosts, otherRefs := other.seen()
					assert.Zero(t, otherPosts, "nothing goes where the plan did not say")
					assert.Empty(t, append(refs, otherRefs...), "no Referer")
					assert.NotContains(t, out, "s3cr3t")
					assertNoSecret(t, "s3cr3t", nil, w.dir)
				})
			}
		}
	}
}
