package apiclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/internal/golden"
)

// serveFixture answers every request with the fixture file and status.
func serveFixture(t *testing.T, file string, status int) *apiclient.Client {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "decode", file))
	must(t, err)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if strings.HasSuffix(file, ".json") {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		w.Write(body)
	})
	return f.client(t, apiclient.WithMaxRetries(0))
}

// goldenJSON compares v, rendered as indented JSON, with
// testdata/decode/name.golden.
func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	golden.Check(t, filepath.Join("testdata", "decode", name+".golden"), append(got, '\n'))
}

func TestDecodeNotifications(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"notifications_facts_example.json", "notifications_quirks.json"} {
		t.Run(file, func(t *testing.T) {
			p, err := serveFixture(t, file, 200).ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: 1})
			must(t, err)
			goldenJSON(t, strings.TrimSuffix(file, ".json"), p)
		})
	}
	t.Run("facts example reconciles", func(t *testing.T) {
		p, err := serveFixture(t, "notifications_facts_example.json", 200).ListNotifications(ctx, apiclient.ListNotificationsOptions{})
		must(t, err)
		n := p.Results[0]
		eq(t, "resulted", n.Resulted(), true)
		eq(t, "profit = accepted × (odds − 1)", float64(n.Profit), float64(n.TotalAccepted)*(float64(n.AverageOdds)-1))
		eq(t, "runner names split on #&#", strings.Join(apiclient.SplitList(n.Tip.Competition.RunnerNames), "|"), "ALPHA|BRAVO|CHARLIE")
		eq(t, "next", p.Next == nil, true)
	})
	t.Run("quirks", func(t *testing.T) {
		p, err := serveFixture(t, "notifications_quirks.json", 200).ListNotifications(ctx, apiclient.ListNotificationsOptions{})
		must(t, err)
		n := p.Results[0]
		eq(t, "id from a string", int64(n.ID), 502)
		eq(t, "unknown type kept", n.Type, "Brand New Type")
		eq(t, "stake from a string", float64(n.Stake), 2.5)
		eq(t, "target_session from a number", string(n.TargetSession), "98765")
		eq(t, "not resulted", n.Resulted(), false)
		eq(t, "venue from an array", n.Tip.Competition.Name.First(), "SAMPLE PARK")
		contains(t, "Raw keeps unknown fields", string(n.Raw), `"brand_new_field": {"nested": [1, 2, 3]}`)
	})
}

func TestDecodeRaces(t *testing.T) {
	for _, file := range []string{"namecodes_name_array.json", "namecodes_name_string.json"} {
		t.Run(file, func(t *testing.T) {
			races, err := serveFixture(t, file, 200).ListRaces(context.Background())
			must(t, err)
			goldenJSON(t, strings.TrimSuffix(file, ".json"), races)
		})
	}
	races, err := serveFixture(t, "namecodes_name_string.json", 200).ListRaces(context.Background())
	must(t, err)
	eq(t, "venue", races[0].Venue(), "SAMPLE PARK")
	eq(t, "names", strings.Join(races[0].RunnerNameList(), "|"), "ALPHA|BRAVO|DELTA|ECHO")
	races, err = serveFixture(t, "namecodes_name_array.json", 200).ListRaces(context.Background())
	must(t, err)
	eq(t, "venue", races[0].Venue(), "RANDWICK")
	eq(t, "comma names", strings.Join(races[0].RunnerNameList(), "|"), "FAST ONE|SLOW TWO|MIDDLE THREE|LAST FOUR")
	eq(t, "empty name", races[1].Venue(), "")
}

func TestDecodeBetRecords(t *testing.T) {
	for _, file := range []string{"bets_bare_array.json", "bets_object.json"} {
		t.Run(file, func(t *testing.T) {
			recs, err := serveFixture(t, file, 200).BetsByNotification(context.Background(), 501)
			must(t, err)
			goldenJSON(t, strings.TrimSuffix(file, ".json"), recs)
		})
	}
	recs, err := serveFixture(t, "bets_bare_array.json", 200).BetsByNotification(context.Background(), 501)
	must(t, err)
	eq(t, "records", len(recs), 3)
	eq(t, "profit from a string", float64(recs[1].Profit), 21.6)
	eq(t, "unknown submit result kept", recs[2].SubmitResult, "Pending Review")
	eq(t, "unknown status kept", recs[2].Status, "SOMETHING_NEW")
	eq(t, "accepted", recs[0].Accepted(), true)
	eq(t, "failed", recs[1].Failed(), true)
	recs, err = serveFixture(t, "bets_object.json", 200).BetsByNotification(context.Background(), 501)
	must(t, err)
	eq(t, "records", len(recs), 2)
	contains(t, "notification object kept as text", string(recs[0].Notification), `"label": "betplan-0001"`)
	contains(t, "Raw keeps unknown fields", string(recs[0].Raw), `"reporting_usage": 1`)
	// The same records come back from a search (bare array).
	found, err := serveFixture(t, "bets_bare_array.json", 200).SearchBets(context.Background(), []int64{9001})
	must(t, err)
	eq(t, "search records", len(found), 3)
}

func TestDecodeSessions(t *testing.T) {
	for _, file := range []string{"sessions_bare.json", "sessions_wrapped.json"} {
		t.Run(file, func(t *testing.T) {
			ss, err := serveFixture(t, file, 200).ListSessions(context.Background())
			must(t, err)
			goldenJSON(t, strings.TrimSuffix(file, ".json"), ss)
		})
	}
}

func TestDecodeCreateResult(t *testing.T) {
	for _, tt := range []struct {
		file    string
		id      int64
		message string
		notif   bool
	}{
		{"create_notification.json", 1234, "", true},
		{"create_id_message.json", 1235, "Notification created", false},
		{"create_ok.txt", 0, "OK", false},
		{"create_id_not_a_number.json", 0, "queued", false},
	} {
		t.Run(tt.file, func(t *testing.T) {
			res, err := serveFixture(t, tt.file, 200).CreateNotification(context.Background(), createReq())
			must(t, err)
			eq(t, "ID", res.ID, tt.id)
			eq(t, "Message", res.Message, tt.message)
			eq(t, "Notification", res.Notification != nil, tt.notif)
			raw, _ := os.ReadFile(filepath.Join("testdata", "decode", tt.file))
			eq(t, "Raw", string(res.Raw), string(raw))
			if tt.notif {
				eq(t, "notification label", res.Notification.Label, "betplan-0001")
			}
		})
	}
}

func TestDecodeErrorBodies(t *testing.T) {
	for _, tt := range []struct {
		file   string
		status int
	}{
		{"error_error.json", 403},
		{"error_detail.json", 401},
		{"error_fields.json", 400},
		{"error_text.txt", 502},
	} {
		t.Run(tt.file, func(t *testing.T) {
			_, err := serveFixture(t, tt.file, tt.status).ListRaces(context.Background())
			var e *apiclient.Error
			if !errors.As(err, &e) {
				t.Fatalf("%T %v", err, err)
			}
			goldenJSON(t, strings.TrimSuffix(tt.file, filepath.Ext(tt.file)), struct {
				Text string
				*apiclient.Error
			}{err.Error(), e})
		})
	}
}

// A page read again decodes to the same notifications as the first read
// (entries already seen are not decoded twice), and a client that read
// it before gives what a fresh client gives. Races likewise.
func TestDecodeTwiceSameAsOnce(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"notifications_facts_example.json", "notifications_quirks.json"} {
		c := serveFixture(t, file, 200)
		first, err := c.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: 1})
		must(t, err)
		again, err := c.ListNotifications(ctx, apiclient.ListNotificationsOptions{Page: 1})
		must(t, err)
		a, _ := json.Marshal(first)
		b, _ := json.Marshal(again)
		eq(t, file+" read twice", string(b), string(a))
		goldenJSON(t, strings.TrimSuffix(file, ".json"), again)
	}
}

// A notification's detail keeps the service's words beside the records:
// the bots' lines in either documented shape, and any line in another
// shape as its text, never dropped; the bare-array variant has records
// alone.
func TestDecodeNotificationDetail(t *testing.T) {
	ctx := context.Background()
	for _, file := range []string{"bets_object.json", "detail_quirks.json"} {
		t.Run(file, func(t *testing.T) {
			d, err := serveFixture(t, file, 200).NotificationDetail(ctx, 501)
			must(t, err)
			goldenJSON(t, "detail_"+strings.TrimSuffix(strings.TrimPrefix(file, "detail_"), ".json"), d)
		})
	}
	d, err := serveFixture(t, "detail_quirks.json", 200).NotificationDetail(ctx, 501)
	must(t, err)
	lines := d.Lines()
	eq(t, "lines kept", len(lines), 5)
	eq(t, "first line", lines[0].Log, "TAB-2: not logged in: invalid password")
	eq(t, "id from a string", int64(lines[1].ID), 8)
	eq(t, "an object log kept as its text", lines[1].Log, `{"level": "warn", "text": "slip not submitted"}`)
	eq(t, "a bare line", lines[2].Log, "a bare line")
	eq(t, "a line of another shape kept whole", lines[3].Log, `{"something": "else"}`)
	eq(t, "logs not a list kept whole", lines[4].Log, `{"unexpected": "object"}`)
	eq(t, "session part", d.SessionInfo[0].DisplayName, "TAB-2")
	d, err = serveFixture(t, "bets_bare_array.json", 200).NotificationDetail(ctx, 501)
	must(t, err)
	eq(t, "bare array: records", len(d.Bets), 3)
	eq(t, "bare array: no lines", len(d.Lines()), 0)
}

// A session's bookmaker stake bounds come from its account_settings, read
// from the same list of sessions; a session without them has none.
func TestDecodeSessionStakeBounds(t *testing.T) {
	ss, err := serveFixture(t, "sessions_bare.json", 200).ListSessions(context.Background())
	must(t, err)
	lo, hi := ss[0].StakeBounds()
	eq(t, "min", lo, 1.0)
	eq(t, "max", hi, 100.0)
	lo, hi = ss[1].StakeBounds()
	eq(t, "no settings: no min", lo, 0.0)
	eq(t, "no settings: no max", hi, 0.0)
}

// The bots' log of a notification is kept as it came, whatever its shape
// (not JSON, here), up to MaxBotLogBytes, saying how much was left off.
// (The client cleans control characters out of every body as it enters:
// sanitize.go.)
func TestBotLogBodyVerbatim(t *testing.T) {
	long := "  line one; not json at all: <b>x</b> " + strings.Repeat("x", apiclient.MaxBotLogBytes)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(long))
	})
	body, cut, err := f.client(t, apiclient.WithMaxRetries(0)).BotLogBody(context.Background(), 501)
	must(t, err)
	if string(body) != long[:apiclient.MaxBotLogBytes] {
		t.Errorf("kept %q…, want %q…", body[:40], long[:40])
	}
	eq(t, "cut", cut, len(long)-apiclient.MaxBotLogBytes)
	eq(t, "path", f.count("GET", "/bot/logs/501/"), 1)
}

// An amount that is not money (not finite, or beyond ±$1e12) is read as 0
// and named by its record, which reads on with the rest of the page: one
// hostile notification or bet record never fails the read of the others,
// nor reaches a sum.
func TestDecodeHostileAmounts(t *testing.T) {
	ctx := context.Background()
	p, err := serveFixture(t, "notifications_hostile_amounts.json", 200).ListNotifications(ctx, apiclient.ListNotificationsOptions{})
	must(t, err)
	eq(t, "notifications", len(p.Results), 3)
	fine, huge, over := p.Results[0], p.Results[1], p.Results[2]
	eq(t, "a fine one", fine.CorruptAmounts(), "")
	eq(t, "its profit", fine.Profit.Cents(), int64(750))
	eq(t, "1e300 named", huge.CorruptAmounts(), "profit 1e+300 is not an amount of money (not finite, or beyond ±$1,000,000,000,000)")
	eq(t, "1e300 read as 0", float64(huge.Profit), 0)
	eq(t, "its other amounts kept", huge.TotalAccepted.Cents(), int64(500))
	eq(t, "1e309 and just past the bound named", over.CorruptAmounts(),
		"stake +Inf is not an amount of money (not finite, or beyond ±$1,000,000,000,000); total_accepted -1.00000000000001e+12 is not an amount of money (not finite, or beyond ±$1,000,000,000,000)")
	eq(t, "read as 0", float64(over.Stake)+float64(over.TotalAccepted), 0)
	eq(t, "its profit kept", over.Profit.Cents(), int64(-400))

	recs, err := serveFixture(t, "bets_hostile_amounts.json", 200).BetsByNotification(ctx, 12)
	must(t, err)
	eq(t, "records", len(recs), 2)
	eq(t, "a fine record", recs[0].CorruptAmounts(), "")
	eq(t, "-1e300 named", recs[1].CorruptAmounts(), "profit -1e+300 is not an amount of money (not finite, or beyond ±$1,000,000,000,000)")
	eq(t, "read as 0", recs[1].Profit.Cents(), int64(0))
}
