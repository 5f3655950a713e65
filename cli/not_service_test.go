package cli

import (
	"net/http"
	"net/http/httptest"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdOKPage is `okpage [json]`: a server on loopback, at $OKPAGE_URL for
// the rest of the script, that answers 200 "ok" (text/plain) to every
// request, as a health page or a proxy in front of nothing would; with
// json, 200 {"status": "ok"}.
func cmdOKPage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 || len(args) == 1 && args[0] != "json" {
		ts.Fatalf("usage: okpage [json]")
	}
	body, kind := "ok", "text/plain"
	if len(args) == 1 {
		body, kind = `{"status": "ok"}`, "application/json"
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", kind)
		w.Write([]byte(body))
	}))
	ts.Defer(srv.Close)
	ts.Setenv("OKPAGE_URL", srv.URL)
}
