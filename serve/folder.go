package serve

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/betplan/betplan/notify"
	"github.com/betplan/betplan/plan"
)

// Version is one valid version of a plan file, as loaded and checked.
type Version struct {
	File string
	Name string
	// Hash is the plan's hash (the report's), and Key what the version
	// depends on: the plan file's bytes and its account file's. A change
	// of either is a new version.
	Hash, Key string
	Plan      *plan.Plan
	// Targets are its alerts' targets (the plan's and its account's).
	Targets []notify.Target
	// Extra is what the loader keeps with it for the run (its account
	// file, its options).
	Extra any
}

// Problem is a plan file that does not load: its problems, each at its
// file:line:col, as validate prints them.
type Problem struct {
	File string
	Key  string // the file's bytes, hashed: one broken version is told once
	// Where is the first error's file:line:col, and Text every problem.
	Where, Text string
}

// Scan is the folder's plan files as loaded now.
type Scan struct {
	Versions []*Version
	Problems []*Problem
}

// Loader loads every plan file of a folder. A loader keeps what it
// loaded by Key: an unchanged file is not checked again.
type Loader func() (Scan, error)

// watch tells changed of every change under dir (a file written,
// created, removed or renamed, in dir or a folder below it that is not
// hidden), and every rescan as a back-up: some file systems (network
// mounts, some containers' volumes) report nothing.
func watch(ctx context.Context, dir string, rescan time.Duration, changed chan<- struct{}, logf func(string, ...any)) {
	tell := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		logf("watching %s: %v; re-reading it every %s", dir, err, rescan)
	} else {
		defer w.Close()
		addDirs(w, dir, logf)
	}
	var events chan fsnotify.Event
	var errs chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	tick := time.NewTicker(rescan)
	defer tick.Stop()
	// An editor writes a file in several steps, git pull many files at
	// once: one load after the burst.
	var settle <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			if ev.Has(fsnotify.Create) {
				addDirs(w, ev.Name, logf) // a folder made (or moved) in
			}
			settle = time.After(200 * time.Millisecond)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			logf("watching %s: %v", dir, err)
		case <-settle:
			settle = nil
			tell()
		case <-tick.C:
			tell()
		}
	}
}

// addDirs watches root, if it is a folder, and the folders below it
// that plans may be in (hidden ones, such as .betplan, are not).
func addDirs(w *fsnotify.Watcher, root string, logf func(string, ...any)) {
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.Add(path); err != nil {
			logf("watching %s: %v", path, err)
		}
		return nil
	})
}
