package cli

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/internal/smtptest"
)

// posts is a loopback server that keeps each request's path and JSON body
// and answers as a Bark server does (which the other services take too).
type posts struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies map[string][]map[string]any
}

func newPosts(tls bool) *posts {
	p := &posts{bodies: map[string][]map[string]any{}}
	h := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			rw.WriteHeader(http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.bodies[r.URL.Path] = append(p.bodies[r.URL.Path], m)
		p.mu.Unlock()
		rw.Header().Set("Content-Type", "application/json")
		io.WriteString(rw, `{"code":200,"message":"success","timestamp":1}`)
	})
	if tls {
		p.srv = httptest.NewTLSServer(h)
	} else {
		p.srv = httptest.NewServer(h)
	}
	return p
}

func (p *posts) at(path string) []map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]map[string]any(nil), p.bodies[path]...)
}

// A rehearsal's alerts say so wherever the service shows a title, not in
// the message alone: an e-mail's subject (betplan's own where the URL
// sets none, the URL's own followed by "(rehearsal)"), a push's title, an
// incident's headline. Real servers on loopback take them from the real
// binary: a mail server, a Bark server over plain http (loopback only),
// and an Opsgenie API over https with a certificate this machine trusts.
func TestRehearsalAlertTitles(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts the real binary")
	}
	mail, err := smtptest.NewServer()
	require.NoError(t, err)
	t.Cleanup(func() { mail.Close() })
	bark := newPosts(false)
	t.Cleanup(bark.srv.Close)
	pager := newPosts(true)
	t.Cleanup(pager.srv.Close)

	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: pager.srv.Certificate().Raw}), 0o644))
	src, err := os.ReadFile("examples/saturday-card.yaml")
	require.NoError(t, err)
	targets := "\nnotify:\n" +
		"  - {url: '${MAIL}', on: [summary]}\n" +
		"  - {url: '${MAIL}&subject=Race+day', on: [summary]}\n" +
		"  - {url: '${BARK}', on: [summary]}\n" +
		"  - {url: '${PAGER}', on: [summary]}\n" +
		"bets:\n"
	card := strings.Replace(string(src), "\nbets:\n", targets, 1)
	require.NotEqual(t, string(src), card)
	plan := filepath.Join(dir, "card.yaml")
	require.NoError(t, os.WriteFile(plan, []byte(card), 0o644))

	env := []string{
		"MAIL=smtp://" + mail.Addr + "/?from=betplan@example.com&to=punter@example.com&auth=None&encryption=None&usestarttls=No",
		"BARK=bark://:devicekey@" + strings.TrimPrefix(bark.srv.URL, "http://") + "/?scheme=http&title=Phone",
		"PAGER=opsgenie://" + strings.TrimPrefix(pager.srv.URL, "https://") + "/apikey?title=Pager",
		"SSL_CERT_FILE=" + ca,
	}
	_, stderr, code := betplanExec(t, dir, env, "run", "--sim", plan, "--report-dir", filepath.Join(dir, "rep"), "--state-dir", filepath.Join(dir, "state"))
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, readReport(t, filepath.Join(dir, "rep")).Undelivered, stderr)

	var subjects []string
	for _, m := range mail.Mails() {
		subjects = append(subjects, m.Header.Get("Subject"))
		assert.Contains(t, m.Body, "betplan saturday-card (rehearsal): ")
	}
	assert.ElementsMatch(t, []string{"betplan saturday-card (rehearsal)", "Race day (rehearsal)"}, subjects)

	pushes := bark.at("/push")
	require.Len(t, pushes, 1)
	assert.Equal(t, "Phone (rehearsal)", pushes[0]["title"])
	assert.Contains(t, pushes[0]["body"], "betplan saturday-card (rehearsal): ")

	alerts := pager.at("/v2/alerts")
	require.Len(t, alerts, 1)
	assert.Equal(t, "Pager (rehearsal)", alerts[0]["message"], "Opsgenie's headline is the title")
	assert.Contains(t, alerts[0]["description"], "betplan saturday-card (rehearsal): ")
}
