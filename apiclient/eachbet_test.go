package apiclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// betsService serves GET /bet/ as pages of n records, each label
// labelBytes long (escape sequences, JSON-escaped, when escapes), until
// page last, after which it answers page 1, as the service does for a
// page past the end.
func betsService(t *testing.T, n, labelBytes, last int, escapes bool) *apiclient.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page < 1 || page > last {
			page = 1
		}
		label := strings.Repeat("x", labelBytes)
		if escapes {
			label = strings.Repeat(`\u001b[2J`, labelBytes/10)
		}
		var recs []string
		for i := range n {
			recs = append(recs, fmt.Sprintf(`{"id":%d,"label":"%s","amount":1}`, page*1000+i, label))
		}
		prev := "null"
		if page > 1 {
			prev = `"http://x/bet/?page=` + strconv.Itoa(page-1) + `"`
		}
		fmt.Fprintf(rw, `{"count":1,"next":"http://x/bet/?page=%d","previous":%s,"results":[%s]}`, page+1, prev, strings.Join(recs, ","))
	}))
	t.Cleanup(srv.Close)
	c, err := apiclient.New(srv.URL, apiclient.WithToken("t"), apiclient.WithRateLimit(0, 1), apiclient.WithTimeout(5*time.Second), apiclient.WithTokenCache(""))
	must(t, err)
	return c
}

// EachBet hands every record on once, page by page, and ends where the
// service answers page 1 for a page past the end; each page's bytes are
// its body as it came, before the client cleaned it.
func TestEachBetWalksEveryPageOnce(t *testing.T) {
	c := betsService(t, 3, 100, 4, true)
	var ids []int64
	var pages []apiclient.BetsPage
	for p, err := range c.EachBet(context.Background(), func(r *apiclient.BetRecord) error {
		ids = append(ids, int64(r.ID))
		eq(t, "a cleaned label", r.Label, "")
		return nil
	}) {
		must(t, err)
		pages = append(pages, p)
	}
	eq(t, "records", len(ids), 12)
	eq(t, "pages", len(pages), 4)
	eq(t, "last page", pages[3].Number, 4)
	eq(t, "records of a page", pages[0].Records, 3)
	if pages[0].Bytes < 300 {
		t.Errorf("page 1 counts %d bytes: not the 3 labels of 100 bytes the service sent", pages[0].Bytes)
	}
}

// A page over 8 MB is not read: the walk ends with an error saying so,
// and an error from the caller ends it as it is.
func TestEachBetBounds(t *testing.T) {
	c := betsService(t, 100, 100<<10, 1000, false)
	for _, err := range c.EachBet(context.Background(), func(*apiclient.BetRecord) error { return nil }) {
		if err == nil {
			t.Fatal("a 10 MB page was read")
		}
		contains(t, "the error", err.Error(), "page 1: GET /bet/: cannot read the response: the answer is over 8 MB, the most betplan reads of it")
		break
	}
	stop := fmt.Errorf("enough")
	c = betsService(t, 5, 10, 1000, false)
	n := 0
	for _, err := range c.EachBet(context.Background(), func(*apiclient.BetRecord) error {
		n++
		if n == 7 {
			return stop
		}
		return nil
	}) {
		if err != nil {
			eq(t, "the caller's error", err, stop)
			break
		}
	}
	eq(t, "records handed on", n, 7)
}
