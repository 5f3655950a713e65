package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdOldJournal is `oldjournal DST SRC...`: DST is the journals SRC... as
// one journal of a betplan that kept one per plan whatever the service
// (the journal a rehearsal's records leaked into): one lineage and one run
// of serials, a single init entry, and no service or account named.
func cmdOldJournal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: oldjournal DST SRC...")
	}
	var out bytes.Buffer
	var lineage any
	serial := 0
	for _, src := range args[1:] {
		sc := bufio.NewScanner(bytes.NewReader([]byte(ts.ReadFile(src))))
		for sc.Scan() {
			var e map[string]any
			ts.Check(json.Unmarshal(sc.Bytes(), &e))
			if e["op"] == "init" && serial > 0 {
				continue
			}
			if lineage == nil {
				lineage = e["lineage"]
			}
			serial++
			e["serial"], e["lineage"] = serial, lineage
			delete(e, "service")
			delete(e, "account")
			b, err := json.Marshal(e)
			ts.Check(err)
			out.Write(append(b, '\n'))
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out.Bytes(), 0o644))
}
