package apiclient_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

// cannedTransport answers every request with one status and body, in
// memory, so the fuzzer drives the client's real decoding path.
type cannedTransport struct {
	status int
	body   []byte
}

func (c cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	return &http.Response{
		StatusCode: c.status, Header: http.Header{"Retry-After": []string{"1"}},
		Body: io.NopCloser(bytes.NewReader(c.body)), Request: r,
	}, nil
}

func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "decode", "*"))
	for _, p := range files {
		if filepath.Ext(p) == ".golden" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{"", "null", "[]", "{}", `{"results": null}`, `{"bets": {}}`, `[null]`, `{"id": 1e400}`,
		`{"id": "-1"}`, `[{"name": {}}]`, `{"error": ["a", 1]}`, `{"detail": {"x": 1}}`, "\xff\xfe", `"OK"`, `12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzBody)
}

// fuzzBody feeds body, with several statuses, to every decoder.
func fuzzBody(t *testing.T, body []byte) {
	{
		ctx := context.Background()
		for _, status := range []int{200, 400, 503} {
			c, err := apiclient.New("http://127.0.0.1:1",
				apiclient.WithHTTPClient(&http.Client{Transport: cannedTransport{status, body}}),
				apiclient.WithToken("T"), apiclient.WithRateLimit(0, 1), apiclient.WithMaxRetries(0),
				apiclient.WithTokenCache(""))
			if err != nil {
				t.Fatal(err)
			}
			c.ListNotifications(ctx, apiclient.ListNotificationsOptions{})
			for _, err := range c.Notifications(ctx, apiclient.ListNotificationsOptions{}) {
				if err != nil {
					break
				}
			}
			c.ListRaces(ctx)
			c.ListSessions(ctx)
			c.GetSession(ctx, 1)
			c.BetsByNotification(ctx, 1)
			c.SearchBets(ctx, []int64{1})
			c.ListBets(ctx, apiclient.ListBetsOptions{})
			c.BetCodes(ctx)
			c.BookieNames(ctx)
			c.ControlAllSessions(ctx, true)
			c.ScheduledNotifications(ctx)
			c.ListEvents(ctx)
			c.GetEvent(ctx, "1")
			res, err := c.CreateNotification(ctx, createReq())
			if status == 200 && (err != nil || res == nil) {
				t.Fatalf("create with a 2xx answer: %v", err)
			}
			if status != 200 && err != nil {
				_ = err.Error()
			}
		}
	}
}
