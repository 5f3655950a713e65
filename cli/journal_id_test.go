package cli

import (
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/betplan/betplan/state/local"
)

// cmdFreePort is `freeport VAR`: VAR is a loopback port nothing listens
// on now, for a `betplan sim` served in the background.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	ts.Check(l.Close())
	ts.Setenv(args[0], itoa(port))
}

// cmdWaitPort is `waitport HOST:PORT`: it waits up to ten seconds for a
// service to listen there.
func cmdWaitPort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitport HOST:PORT")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", args[0], time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing listens on %s: %v", args[0], err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdJournal is `journal [-sim] VAR STATEDIR PLAN`: VAR is the path of
// PLAN's journal in STATEDIR against the service at $BETPLAN_BASE_URL,
// or, with -sim or none set (a rehearsal's in-process service, on a port
// of its own), the one journal of PLAN there.
func cmdJournal(ts *testscript.TestScript, neg bool, args []string) {
	rehearsal := len(args) > 0 && args[0] == "-sim"
	if rehearsal {
		args = args[1:]
	}
	if neg || len(args) != 3 {
		ts.Fatalf("usage: journal [-sim] VAR STATEDIR PLAN")
	}
	dir := ts.MkAbs(args[1])
	if base := ts.Getenv("BETPLAN_BASE_URL"); base != "" && !rehearsal {
		ts.Setenv(args[0], local.Layout{Dir: dir}.JournalPath(args[2], base))
		return
	}
	paths, err := filepath.Glob(filepath.Join(dir, args[2]+".????????????.journal.jsonl"))
	ts.Check(err)
	if len(paths) != 1 {
		ts.Fatalf("journal: %d journals of %s in %s, want 1", len(paths), args[2], dir)
	}
	ts.Setenv(args[0], paths[0])
}

func itoa(n int) string { return fmt.Sprint(n) }
