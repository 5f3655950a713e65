package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// restorable is a world's state on one machine, local or shared, that a
// test copies and puts back.
type restorable struct {
	w        *crashWorld
	kind     string
	stateURL string
	schema   string
	records  int
}

func newRestorable(t *testing.T, w *crashWorld, kind string) *restorable {
	s := &restorable{w: w, kind: kind}
	if kind == "shared" {
		s.stateURL, s.schema = sharedState(t)
	}
	return s
}

func (s *restorable) stateDir() string { return filepath.Join(s.w.dir, "host", "state") }

// backup copies the state as it stands.
func (s *restorable) backup() {
	t := s.w.t
	if s.kind == "shared" {
		pgtest.Query(t, pgtest.ServerURL(t), fmt.Sprintf("SELECT count(*) FROM %s.journal", s.schema), nil, &s.records)
		return
	}
	require.NoError(t, os.CopyFS(filepath.Join(s.w.dir, "backup"), os.DirFS(s.stateDir())))
}

// restore puts the copy back.
func (s *restorable) restore() {
	t := s.w.t
	if s.kind == "shared" {
		pgtest.Exec(t, pgtest.ServerURL(t), fmt.Sprintf("DELETE FROM %s.journal WHERE serial > %d", s.schema, s.records))
		return
	}
	require.NoError(t, os.RemoveAll(s.stateDir()))
	require.NoError(t, os.CopyFS(s.stateDir(), os.DirFS(filepath.Join(s.w.dir, "backup"))))
}

// run is `betplan run` of the world's plan on the machine "host", killed
// at the checkpoint crashAt ("" for none), with env added.
func (s *restorable) run(crashAt string, env ...string) (*machineRun, bool) {
	m := s.w.onMachine("host", s.stateURL, "run", s.w.plan, "--no-wait")
	m.cmd.Env = append(m.cmd.Env, env...)
	m.cmd.Env = append(m.cmd.Env, crashEnv+"="+crashAt)
	m.start()
	err := m.cmd.Wait()
	return m, killedBySIGKILL(err)
}

// A state put back from an older copy after a publish (a tip, or a
// race's pre-alert) went out: the copy has no record of the call. This
// host's intent file still shows it, so the next run records it as sent
// with its outcome unknown, and never sends it again.
func TestRestoredStateAfterAPublish(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	t.Parallel()
	for _, kind := range []string{"local", "shared"} {
		for _, send := range []string{"publish", "prealert"} {
			t.Run(kind+"/"+send, func(t *testing.T) {
				t.Parallel()
				w := newCrashWorld(t, 1)
				s := newRestorable(t, w, kind)
				r := w.svc.Races()[len(w.svc.Races())-1]
				yaml := "version: 1\nname: restored-tips\n"
				if send == "prealert" {
					yaml += "prealert: {before: 20m}\n"
				}
				yaml += "tips:\n  - {id: only, race: {venue: \"" + r.Venue + "\", code: " + r.Code +
					", event_number: " + strconv.Itoa(r.EventNumber) + "}, market: Fixed Win, selection: \"" + r.Runners[0] + "\", amount_units: 1, odds: 3, max_odds: 60, bookies: \"41\"}\n"
				require.NoError(t, os.WriteFile(w.plan, []byte(yaml), 0o644))
				key := tipsterKeyEnv + "=" + sim.DefaultTipsterAPIKey
				sent := func() int {
					if send == "prealert" {
						return len(w.svc.Prealerts())
					}
					return len(w.svc.PublishedTips())
				}

				// A first run dies before its call: the backup holds its
				// journal, with nothing of the call.
				m, killed := s.run("announce-"+send+":1", key)
				require.True(t, killed, "%s", m.output())
				require.Zero(t, sent())
				s.backup()
				m, killed = s.run("posted-"+send+":1", key)
				require.True(t, killed, "%s", m.output())
				require.Equal(t, 1, sent(), "the call went out before the kill")
				assert.Len(t, w.intentFiles("host"), 1, "the call in flight is noted beside the lock")
				s.restore()

				m, killed = s.run("", key)
				require.False(t, killed, "%s", m.output())
				assert.Equal(t, 1, sent(), "the %s the restored journal forgot was sent again:\n%s", send, m.output())
				assert.Contains(t, m.stderr.String(), "intent file shows")
				var rep struct {
					Tips []struct {
						Status string `json:"status"`
						Reason string `json:"reason"`
					} `json:"tips"`
				}
				b, err := os.ReadFile(filepath.Join(w.dir, "host", "report", "report.json"))
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &rep))
				require.Len(t, rep.Tips, 1)
				if send == "publish" {
					assert.Equal(t, "unknown", rep.Tips[0].Status)
					assert.Contains(t, rep.Tips[0].Reason, "journal does not know it")
				} else {
					assert.Equal(t, "published", rep.Tips[0].Status, "the pre-alert's outcome is unknown, the tip is sent")
					assert.Len(t, w.svc.PublishedTips(), 1)
				}
				assert.Empty(t, w.intentFiles("host"), "the call's outcome is in the journal")

				// And a further run sends nothing.
				s.run("", key)
				assert.Equal(t, 1, sent())
			})
		}
	}
}

// A state put back from an older copy after an alert was taken by its
// target: the copy has no record of the attempt (nor of the alert). The
// intent file still shows it, so the next run reports it "outcome
// unknown" and never sends it again.
func TestRestoredStateAfterAnAlert(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	t.Parallel()
	for _, kind := range []string{"local", "shared"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			rc := newReceiver(0)
			defer rc.srv.Close()
			w := newCrashWorld(t, 2)
			w.notifyHook("placed, summary")
			hook := "HOOK=" + rc.srv.URL + secretPath
			s := newRestorable(t, w, kind)

			// The bets are created; the run's summary makes the target
			// known to the journal.
			m, killed := s.run("", hook)
			require.False(t, killed, "%s", m.output())
			require.Len(t, rc.received(), 1)
			s.backup()
			// The simulated bots take the bets up 3 seconds after their
			// create: the next run alerts that, and dies as soon as the
			// first alert was taken, before its journal said so.
			time.Sleep(4 * time.Second)
			m, killed = s.run("alert-posted:1", hook)
			require.True(t, killed, "%s", m.output())
			require.Len(t, rc.received(), 2)
			require.Equal(t, "placed", rc.received()[1]["event"])
			assert.Len(t, w.intentFiles("host"), 1, "the attempt is noted beside the lock")
			s.restore()

			m, killed = s.run("", hook)
			require.False(t, killed, "%s", m.output())
			seen := map[string]int{}
			for _, b := range rc.received() {
				seen[b["id"].(string)]++
			}
			for id, n := range seen {
				assert.Equal(t, 1, n, "alert %s arrived %d times:\n%s", id, n, m.output())
			}
			var rep reportDoc
			b, err := os.ReadFile(filepath.Join(w.dir, "host", "report", "report.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &rep))
			require.NotEmpty(t, rep.Undelivered)
			assert.Equal(t, "outcome unknown", rep.Undelivered[0].Outcome)
			assert.Equal(t, "placed", rep.Undelivered[0].Event)
			assert.Equal(t, rc.received()[1]["instance"], rep.Undelivered[0].Bet)
			assert.Contains(t, m.stderr.String(), "intent file shows")
			assert.Empty(t, w.intentFiles("host"))
		})
	}
}
