package local

import (
	"context"
	"path/filepath"
	"sort"
	"strings"

	"github.com/betplan/betplan/state"
)

var _ state.EveryReader = Store{}

// ReadEvery reads every journal of the state dir, and of the rehearsals'
// sim/ folder in it (marked as theirs), each plan's by name and service. A
// journal an earlier betplan kept per plan whatever the service is read
// only while its plan has no journal of a service yet: a run moves it into
// one (and sets the old file aside), so it is never counted twice.
// Each journal's records are read from its file as each reads them, so no
// more than a record is held; the files are read side by side, one a CPU
// (state.SideBySide). ops is not applied here (every line is read from the
// file anyway).
func (s Store) ReadEvery(_ context.Context, _ []string, each func(state.StoredJournal) error) error {
	layout := s.Layout.WithDefaults("")
	var journals []state.StoredJournal
	for _, dir := range []struct {
		path      string
		rehearsal bool
	}{{layout.Dir, layout.Rehearsal}, {filepath.Join(layout.Dir, "sim"), true}} {
		paths, err := filepath.Glob(filepath.Join(dir.path, "*"+journalSuffix))
		if err != nil {
			return err
		}
		sort.Strings(paths)
		keyed := map[string]bool{}
		for _, p := range paths {
			if name, _, ok := strings.Cut(strings.TrimSuffix(filepath.Base(p), journalSuffix), "."); ok {
				keyed[name] = true
			}
		}
		for _, p := range paths {
			name, _, isKeyed := strings.Cut(strings.TrimSuffix(filepath.Base(p), journalSuffix), ".")
			if !isKeyed && keyed[name] {
				continue
			}
			read := func(record func([]byte) error) error { return EachRecord(p, record) }
			journals = append(journals, state.StoredJournal{Seq: len(journals), Name: name, Where: p, Rehearsal: dir.rehearsal, Read: read})
		}
	}
	return state.SideBySide(len(journals), func(_, i int) error { return each(journals[i]) })
}
