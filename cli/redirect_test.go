package cli

import (
	"bytes"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frontOf puts handler in front of the world's simulated service: the
// betplan processes the test starts talk to it instead.
func (w *crashWorld) frontOf(handler func(rw http.ResponseWriter, r *http.Request, svc http.Handler)) {
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		handler(rw, r, w.svc)
	}))
	w.t.Cleanup(srv.Close)
	w.url = srv.URL
}

// journalText is every journal under the world's state dir, concatenated.
func (w *crashWorld) journalText() string {
	w.t.Helper()
	var all []byte
	err := filepath.WalkDir(filepath.Join(w.dir, "state"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".jsonl" {
			return err
		}
		b, err := os.ReadFile(p)
		all = append(all, b...)
		return err
	})
	require.NoError(w.t, err)
	return string(all)
}

// A service that stores a create and then answers it with a redirect to
// the same URL must not get the create a second time: Go's client would
// send a 307 or 308's body again by itself. The answer is an outcome in
// doubt, resolved by looking the label up, and the bet is journalled.
func TestCreateAnsweredWithRedirectIsSentOnce(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			w := newCrashWorld(t, 1)
			var creates atomic.Int32
			w.frontOf(func(rw http.ResponseWriter, r *http.Request, svc http.Handler) {
				if r.Method == http.MethodPost && r.URL.Path == "/notification/create/" && creates.Add(1) == 1 {
					svc.ServeHTTP(httptest.NewRecorder(), r) // stored, answer lost
					http.Redirect(rw, r, r.URL.Path, status)
					return
				}
				svc.ServeHTTP(rw, r)
			})
			out, err := w.betplan("").CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.EqualValues(t, 1, creates.Load(), "creates sent:\n%s", out)
			require.Equal(t, 1, w.svc.NotificationCount(), "bets on the service:\n%s", out)
			assert.Contains(t, string(out), "looking the label up")
			id := regexp.MustCompile(`"op":"created","label":"[^"]+","bet":"bet-0","id":\d+`).FindString(w.journalText())
			assert.NotEmpty(t, id, "the bet is not journalled:\n%s", w.journalText())
		})
	}
}

// An https service that redirects to plain http on the same host would get
// the token sent in clear if the redirect were followed. It is not, and
// the error says where the service pointed and why betplan stopped.
func TestRedirectToPlainHTTPCarriesNoToken(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 1)
	var gotAuth, gotAny atomic.Bool
	plain := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		gotAny.Store(true)
		if r.Header.Get("Authorization") != "" {
			gotAuth.Store(true)
		}
		w.svc.ServeHTTP(rw, r)
	}))
	t.Cleanup(plain.Close)
	tls := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, plain.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(tls.Close)
	certFile := filepath.Join(t.TempDir(), "cert.pem")
	require.NoError(t, os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tls.Certificate().Raw}), 0o644))
	w.url = tls.URL

	cmd := w.betplan("")
	cmd.Env = append(cmd.Env, "SSL_CERT_FILE="+certFile)
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.False(t, gotAuth.Load(), "the token reached the plain http listener:\n%s", out)
	assert.False(t, gotAny.Load(), "a redirect to another origin was followed:\n%s", out)
	assert.Contains(t, string(out), "to "+plain.URL+"/")
	assert.Contains(t, string(out), "not followed: the token is only sent to "+tls.URL)
	assert.Zero(t, w.svc.NotificationCount())
}

// Escape sequences in what the service sends (an error body, a session's
// name) would retitle or clear the terminal and land in the reports. None
// reaches the output, the journal or a report.
func TestServiceTextWithEscapesIsCleaned(t *testing.T) {
	t.Parallel()
	w := newCrashWorld(t, 2)
	var creates atomic.Int32
	w.frontOf(func(rw http.ResponseWriter, r *http.Request, svc http.Handler) {
		if r.Method == http.MethodPost && r.URL.Path == "/notification/create/" && creates.Add(1) == 1 {
			rw.Header().Set("Content-Type", "text/plain")
			rw.WriteHeader(http.StatusBadRequest)
			rw.Write([]byte("stake refused \x1b]0;pwned\x07by the \x1b[2Jbookmaker\r\nFAKE LINE"))
			return
		}
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, r)
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte("Main Sportsbet"), []byte(`Main \u001b]0;pwned\u0007Sports\u009b2Jbet\u001b[2J`))
		for k, v := range rec.Header() {
			rw.Header()[k] = v
		}
		rw.Header().Del("Content-Length")
		rw.WriteHeader(rec.Code)
		rw.Write(body)
	})
	out, _ := w.betplan("").CombinedOutput()
	assert.Contains(t, string(out), "stake refused by the bookmaker FAKE LINE")
	assert.Contains(t, w.journalText(), "(Main Sportsbet)")
	texts := map[string]string{"output": string(out), "journal": w.journalText()}
	require.NoError(t, filepath.WalkDir(filepath.Join(w.dir, "report"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		texts[p] = string(b)
		return err
	}))
	require.Greater(t, len(texts), 3, "no reports written:\n%s", out)
	for name, text := range texts {
		for _, bad := range []string{"\x1b", "\x07", "\u009b", "pwned", "[2J", `\u001b`, `\u0007`, `\u009b`} {
			assert.NotContains(t, text, bad, "%s carries %q:\n%s", name, bad, text)
		}
	}
}
