package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/state"
)

// A plan's journal is one per service: every spelling of one service finds
// it, another service (a hand-served `betplan sim` on another port) has
// its own, and the account's glob finds only the service's journals.
// Rehearsals (run --sim, a new port each time) share one key.
func TestJournalPerService(t *testing.T) {
	t.Parallel()
	l := Layout{Dir: t.TempDir(), LockDir: t.TempDir()}
	svc, simURL := "https://betting.example.com/api", "http://127.0.0.1:8787"
	assert.Equal(t, l.JournalPath("card", svc), l.JournalPath("card", "HTTPS://Betting.Example.com:443/api/"))
	assert.Equal(t, l.JournalPath("card", simURL), l.JournalPath("card", "http://localhost:8787/"))
	assert.NotEqual(t, l.JournalPath("card", svc), l.JournalPath("card", simURL))
	assert.Regexp(t, `/card\.[0-9a-f]{12}\.journal\.jsonl$`, l.JournalPath("card", svc))
	assert.NotContains(t, l.JournalPath("card", svc), "example")

	for _, p := range []string{l.JournalPath("card", svc), l.JournalPath("other", svc), l.JournalPath("card", simURL), l.LegacyJournalPath("old")} {
		require.NoError(t, os.WriteFile(p, []byte("{}\n"), 0o644))
	}
	got, err := l.Journals(svc)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"card": l.JournalPath("card", svc), "other": l.JournalPath("other", svc)}, got)
	legacy, err := l.LegacyJournals()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"old": filepath.Join(l.Dir, "old.journal.jsonl")}, legacy)

	r := NewLayout(t.TempDir(), "card.yaml", true)
	assert.Equal(t, r.JournalPath("card", "http://127.0.0.1:40001"), r.JournalPath("card", "http://127.0.0.1:40002"))
	require.NoError(t, os.MkdirAll(r.Dir, 0o755))
	require.NoError(t, os.WriteFile(r.JournalPath("card", "http://127.0.0.1:40001"), []byte("{}\n"), 0o644))
	require.NoError(t, r.ForgetJournal("card"))
	_, err = os.Stat(r.JournalPath("card", "http://127.0.0.1:40001"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The store reads and writes the service's journal, and hands the one an
// earlier betplan kept per plan over as a legacy journal, retired (kept,
// renamed) once taken over.
func TestLegacyJournalOfTheStore(t *testing.T) {
	t.Parallel()
	l := Layout{Dir: t.TempDir(), LockDir: t.TempDir()}
	s := Store{Layout: l}
	ctx := context.Background()
	key := state.PlanKey{Name: "card", BaseURL: "https://betting.example.com"}
	lj, err := s.LegacyJournal(ctx, key)
	require.NoError(t, err)
	assert.Nil(t, lj)

	require.NoError(t, os.WriteFile(l.LegacyJournalPath("card"), []byte(`{"serial":1,"op":"init"}`+"\n"), 0o644))
	lj, err = s.LegacyJournal(ctx, key)
	require.NoError(t, err)
	require.NotNil(t, lj)
	assert.Len(t, lj.Records, 1)
	assert.Equal(t, l.JournalPath("card", key.BaseURL), lj.Suggested)
	records, err := s.ReadLog(ctx, key)
	require.NoError(t, err)
	assert.Empty(t, records, "the legacy journal is not the service's until taken over")

	require.NoError(t, s.RetireLegacy(ctx, key, lj))
	lj, err = s.LegacyJournal(ctx, key)
	require.NoError(t, err)
	assert.Nil(t, lj)
	_, err = os.Stat(l.LegacyJournalPath("card") + ".moved-to-" + ServiceKey(key.BaseURL))
	assert.NoError(t, err)
}

// A simulated service's reports go beside a rehearsal's, never over the
// real service's; a rehearsal's layout is in sim/ already.
func TestReportDirForSimulatedService(t *testing.T) {
	l := NewLayout("st", "plans/card.yaml", false)
	if got, want := l.ReportDirFor("card", false), filepath.Join("st", "report", "card"); got != want {
		t.Errorf("real service: %s, want %s", got, want)
	}
	if got, want := l.ReportDirFor("card", true), filepath.Join("st", "sim", "report", "card"); got != want {
		t.Errorf("served sim: %s, want %s", got, want)
	}
	r := NewLayout("st", "plans/card.yaml", true)
	if got, want := r.ReportDirFor("card", true), filepath.Join("st", "sim", "report", "card"); got != want {
		t.Errorf("run --sim: %s, want %s", got, want)
	}
}
