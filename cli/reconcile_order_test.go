package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// betPages serves GET /bet/ as the given pages of records (JSON objects
// without their id, numbered here), linked by next and previous.
func betPages(t *testing.T, pages ...[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/bet/" {
			rw.Write([]byte("[]"))
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		n = max(n, 1)
		if n > len(pages) {
			n = 1 // the service's answer to a page past the end
		}
		link := func(p int) string {
			if p < 1 || p > len(pages) {
				return "null"
			}
			return strconv.Quote("http://" + r.Host + "/bet/?page=" + strconv.Itoa(p))
		}
		recs := make([]string, len(pages[n-1]))
		for i, rec := range pages[n-1] {
			recs[i] = fmt.Sprintf(`{"id":%d,%s}`, n*100+i, rec)
		}
		fmt.Fprintf(rw, `{"count":%d,"next":%s,"previous":%s,"results":[%s]}`, len(pages)*2, link(n+1), link(n-1), strings.Join(recs, ","))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func betRecordJSON(label, day string, profit float64) string {
	return fmt.Sprintf(`"label":%q,"meeting_date":%q,"amount":10,"profit":%v,"status":"SETTLED","submit_result":"Success"`, label, day, profit)
}

// reconcileJournal is a state dir holding plan card's journal: two bets
// lost on 2026-11-21 and 2026-11-22.
func reconcileJournal(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	lines := []string{`{"serial":1,"lineage":"ab","time":"2026-11-21T01:00:00Z","op":"init","service":"https://api.example.com","account":"a1"}`}
	for i, b := range []struct{ label, day string }{{"bp:card:x:000000000001", "2026-11-21"}, {"bp:card:y:000000000002", "2026-11-22"}} {
		lines = append(lines, fmt.Sprintf(`{"serial":%d,"lineage":"ab","time":"%sT03:00:00Z","op":"outcome","label":%q,"outcome":{"label":%q,"bet_id":"b%d","notification_id":%d,"result":"lost","status":"settled","accepted":10,"odds":2,"profit":-10,"venue":"Flemington","code":"Galloping","race":%d,"day":%q,"market":"Fixed Win","type":"Fixed Wager","sessions":[{"session":"S","accepted":10,"odds":2,"profit":-10}]}}`,
			i+2, b.day, b.label, b.label, i, 100+i, i+1, b.day))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "card.0123456789ab.journal.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return dir
}

// TestReconcileReadsPagesInAnyOrder: `history --reconcile` stopped at the
// first record older than --since, as if GET /bet/ came newest first, and
// reported bets on later pages as not on the service. It now passes over
// older records, stops only after a page wholly older than --since (or at
// the service's last page), and says which.
func TestReconcileReadsPagesInAnyOrder(t *testing.T) {
	t.Parallel()
	older := betRecordJSON("bp:card:o:000000000009", "2026-11-10", -5)
	x := betRecordJSON("bp:card:x:000000000001", "2026-11-21", -10)
	y := betRecordJSON("bp:card:y:000000000002", "2026-11-22", -10)
	late := betRecordJSON("bp:elsewhere:z:000000000003", "2026-11-22", 7) // after the wholly older page: never read
	for _, tt := range []struct {
		name  string
		pages [][]string
		words string
		json  string
	}{
		{"a page wholly older", [][]string{{older, x}, {y}, {older, older}, {late}},
			"reconcile read back to 2026-11-21: 5 bet records on 3 pages, up to page 3, the first wholly before 2026-11-21",
			`"reconcile": {"since":"2026-11-21","records":5,"pages":3,"bytes":`},
		{"the last page", [][]string{{older, x}, {older, y}},
			"reconcile read back to 2026-11-21: 4 bet records on 2 pages, to the service's last page",
			`"reconcile": {"since":"2026-11-21","records":4,"pages":2,"bytes":`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := betPages(t, tt.pages...)
			state := reconcileJournal(t)
			args := []string{"history", "--state-dir", state, "--since", "2026-11-21", "--reconcile", "--base-url", srv.URL, "--max-rps", "50"}
			sys, out := testIO(map[string]string{"BETPLAN_TOKEN": "t0ken"})
			code := execute(context.Background(), args, sys)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", out.Stdout, out.Stderr)
			assert.Contains(t, out.Stdout.String(), "\n"+tt.words+"\n")
			assert.Contains(t, out.Stdout.String(), "\nreconciled: the journals agree with the service's bet records\n")

			sys, out = testIO(map[string]string{"BETPLAN_TOKEN": "t0ken"})
			code = execute(context.Background(), append(args, "--format", "json"), sys)
			require.Equal(t, exitOK, code, "%s", out.Stderr)
			assert.Contains(t, out.Stdout.String(), `"differences": []`)
			assert.Contains(t, out.Stdout.String(), tt.json)
		})
	}
}
