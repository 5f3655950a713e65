package history_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/state"
	"github.com/betplan/betplan/state/local"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

const benchService = "https://api.example.com"

// journalRecords are a plan's journal with bets settled bets in it, as a
// run writes them: init, then per bet creating, created, placed, resulted
// and outcome, and an alert every ten bets. Profits are whole cents.
func journalRecords(plan string, bets int) (records [][]byte, profit int64) {
	profit = eachJournalRecord(plan, bets, func(r []byte) { records = append(records, r) })
	return records, profit
}

// eachJournalRecord hands journalRecords' records to each, one at a
// time, and returns their profit.
func eachJournalRecord(plan string, bets int, each func([]byte)) (profit int64) {
	t0 := time.Date(2026, 6, 1, 2, 0, 0, 0, time.UTC)
	add := func(serial int, at time.Time, body string) {
		each([]byte(fmt.Sprintf(`{"serial":%d,"lineage":"0123456789abcdef","time":%q,%s}`, serial, at.Format(time.RFC3339Nano), body)))
	}
	serial := 1
	add(serial, t0, `"op":"init","service":"`+benchService+`","account":"a1b2c3d4e5f60718"`)
	venues := []string{"Flemington", "Randwick", "The Meadows", "Albion Park", "Menangle"}
	codes := []string{"Galloping", "Galloping", "Greyhounds", "Greyhounds", "Harness"}
	for i := range bets {
		at := t0.Add(time.Duration(i) * 7 * time.Minute)
		v := i % len(venues)
		label := fmt.Sprintf("bp:%s:b%d:%012x", plan, i, i)
		race := fmt.Sprintf(`{"Venue":%q,"Code":%q,"EventNumber":%d,"Start":%q}`, venues[v], codes[v], i%10+1, at.Add(10*time.Minute).In(time.FixedZone("AEST", 10*3600)).Format(time.RFC3339))
		id := 100000 + i
		serial++
		add(serial, at, fmt.Sprintf(`"op":"creating","label":%q,"bet":"b%d","amount":10,"at_risk":10,"basis":"stake","race":%s,"attempt":1`, label, i, race))
		serial++
		add(serial, at.Add(time.Second), fmt.Sprintf(`"op":"created","label":%q,"bet":"b%d","id":%d,"amount":10,"at_risk":10,"basis":"stake","race":%s`, label, i, id, race))
		serial++
		add(serial, at.Add(5*time.Second), fmt.Sprintf(`"op":"placed","label":%q,"placed_at":%q,"placed_from":"records"`, label, at.Add(4*time.Second).Format(time.RFC3339)))
		serial++
		add(serial, at.Add(20*time.Minute), fmt.Sprintf(`"op":"resulted","label":%q`, label))
		result, p := "lost", int64(-1000)
		if i%3 == 0 {
			result, p = "won", int64(1000*(i%5+1)+37)
		}
		if i%17 == 0 {
			result, p = "void", 0
		}
		profit += p
		o := engine.JournalOutcome{Label: label, BetID: fmt.Sprintf("b%d", i), NotificationID: int64(id), Result: result, Status: engine.StatusSettled,
			Accepted: 10, Odds: 3.5, Profit: history.Dollars(p), Venue: venues[v], Code: codes[v], Race: i%10 + 1,
			Day: at.Add(10 * time.Minute).In(time.FixedZone("AEST", 10*3600)).Format("2006-01-02"), Market: "Fixed Win", Type: "Fixed Wager",
			ResultTime: at.Add(19 * time.Minute),
			Sessions:   []engine.SessionOutcome{{Session: "Main Sportsbet", Accepted: 10, Odds: 3.5, Profit: history.Dollars(p)}}}
		ob, _ := json.Marshal(o)
		serial++
		add(serial, at.Add(20*time.Minute), fmt.Sprintf(`"op":"outcome","label":%q,"outcome":%s`, label, ob))
		if i%10 == 0 {
			serial++
			add(serial, at.Add(21*time.Minute), fmt.Sprintf(`"op":"alert_sent","alert":{"key":"settled:%s","event":"settled","target":"hook","body":"{\"event\":\"settled\",\"profit\":-10}"}`, label))
		}
	}
	return profit
}

// fillLocal writes plans journals of bets bets each into a state dir.
func fillLocal(t testing.TB, plans, bets int) (state.EveryReader, int64) {
	dir := t.TempDir()
	var total int64
	for p := range plans {
		name := fmt.Sprintf("plan%02d", p)
		path := local.Layout{Dir: dir}.JournalPath(name, benchService)
		f, err := os.Create(path)
		require.NoError(t, err)
		w := bufio.NewWriterSize(f, 1<<20)
		total += eachJournalRecord(name, bets, func(r []byte) {
			w.Write(r)
			w.WriteByte('\n')
		})
		require.NoError(t, w.Flush())
		require.NoError(t, f.Close())
	}
	return local.Store{Layout: local.Layout{Dir: dir, LockDir: filepath.Join(dir, "locks")}}, total
}

// copyJournal keeps recs as plan name's journal on benchService: the
// plan's row made by taking its lock once, the records copied in one
// statement (as a run writes them, one by one, it would take minutes).
func copyJournal(t testing.TB, store *postgres.Store, conn *pgx.Conn, schema, name string, recs [][]byte) {
	t.Helper()
	ctx := context.Background()
	lease, err := store.Lock(ctx, state.LockRequest{PlanKey: state.PlanKey{Name: name, BaseURL: benchService}, Owner: state.LockOwner{PID: 1, Host: "test"}})
	require.NoError(t, err)
	require.NoError(t, lease.Release())
	var id, epoch int64
	require.NoError(t, conn.QueryRow(ctx, "SELECT id, epoch FROM "+pgx.Identifier{schema, "plans"}.Sanitize()+" WHERE name = $1", name).Scan(&id, &epoch))
	rows := make([][]any, len(recs))
	for i, r := range recs {
		rows[i] = []any{id, int64(i + 1), string(r), epoch}
	}
	_, err = conn.CopyFrom(ctx, pgx.Identifier{schema, "journal"}, []string{"plan_id", "serial", "entry", "epoch"}, pgx.CopyFromRows(rows))
	require.NoError(t, err)
}

// fillPostgres keeps the same journals in a fresh schema: each plan's row
// made by taking its lock once, its records copied in one statement.
func fillPostgres(t testing.TB, plans, bets int) (state.EveryReader, int64) {
	stateURL, schema := pgtest.Schema(t)
	cfg, err := postgres.ParseURL(stateURL, "", false)
	require.NoError(t, err)
	store := postgres.New(cfg)
	ctx := context.Background()
	var total int64
	conn, err := pgx.Connect(ctx, stateURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for p := range plans {
		name := fmt.Sprintf("plan%02d", p)
		recs, profit := journalRecords(name, bets)
		total += profit
		copyJournal(t, store, conn, schema, name, recs)
	}
	// The documented view sums the same profits, settled bet by bet.
	_, err = conn.Exec(ctx, history.BetsViewSQL(schema))
	require.NoError(t, err)
	var cents, settled int64
	require.NoError(t, conn.QueryRow(ctx, "SELECT coalesce(round(sum(profit) * 100), 0)::bigint, count(*) FROM "+pgx.Identifier{schema, "betplan_bets"}.Sanitize()).Scan(&cents, &settled))
	require.Equal(t, total, cents, "betplan_bets' profit")
	require.Equal(t, int64(plans*bets), settled)
	return store, total
}

// historyOf reads the state as history does, summing it by plan and day
// as it reads, checking the totals are every outcome's profit to the
// cent.
func historyOf(t testing.TB, store state.EveryReader, bets int, want int64) history.Summary {
	rd, err := history.Read(context.Background(), store, history.Query{By: []string{"plan", "day"}}, false)
	require.NoError(t, err)
	require.Empty(t, rd.Skipped)
	require.Empty(t, rd.Open)
	require.Zero(t, rd.Corrupt.N)
	s, err := rd.Tally.Summary()
	require.NoError(t, err)
	require.Equal(t, want, s.Total.Profit)
	require.Equal(t, bets, s.Total.Bets)
	return s
}

// The benchmark's path at a small size, in make test: both stores. What
// history sums as it reads is what the bets read whole sum to, row by
// row, every measure.
func TestHistorySmallState(t *testing.T) {
	for _, st := range []struct {
		name string
		fill func(testing.TB, int, int) (state.EveryReader, int64)
	}{{"local", fillLocal}, {"postgres", fillPostgres}} {
		t.Run(st.name, func(t *testing.T) {
			store, want := st.fill(t, 5, 200)
			streamed := historyOf(t, store, 1000, want)
			bets, skipped, err := history.ReadBets(context.Background(), store)
			require.NoError(t, err)
			require.Empty(t, skipped)
			require.Len(t, bets, 1000)
			whole := history.Summarise(bets, history.Query{By: []string{"plan", "day"}})
			whole.Curves = nil
			assert.Equal(t, whole, streamed)
		})
	}
}

// BenchmarkHistory100k reads 100,000 settled bets over 50 plans and sums
// them by plan and by day, from a state dir and from PostgreSQL.
func BenchmarkHistory100k(b *testing.B) {
	for _, st := range []struct {
		name string
		fill func(testing.TB, int, int) (state.EveryReader, int64)
	}{{"local", fillLocal}, {"postgres", fillPostgres}} {
		b.Run(st.name, func(b *testing.B) {
			store, want := st.fill(b, 50, 2000)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				historyOf(b, store, 100000, want)
			}
		})
	}
}

// BenchmarkHistory1M reads one plan's journal of 1,000,000 records
// (196,079 settled bets, 290 MB) from a state dir and sums it by plan and
// day: what history holds is a row's sums a row and a small entry a
// settled bet, not the journal. Resident memory is measured on the real
// binary (README).
func BenchmarkHistory1M(b *testing.B) {
	store, want := fillLocal(b, 1, 196079)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		historyOf(b, store, 196079, want)
	}
}

// A journal damaged in its middle, after outcomes history has read, is
// named and left out whole: the totals are the other journals', never a
// part of it.
func TestHistoryDamagedJournalLeftOutWhole(t *testing.T) {
	store, total := fillLocal(t, 3, 40)
	_, damaged := journalRecords("plan01", 40)
	dir := store.(local.Store).Layout.Dir
	path := local.Layout{Dir: dir}.JournalPath("plan01", benchService)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	half := len(lines) / 2
	lines = append(lines[:half], append([]string{`{"serial":999,"op":"outcome","label":` + "\n"}, lines[half:]...)...)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644))

	bets, skipped, err := history.ReadBets(context.Background(), store)
	require.NoError(t, err)
	require.Len(t, skipped, 1)
	assert.Equal(t, path, skipped[0].Where)
	assert.Contains(t, skipped[0].Reason, fmt.Sprintf(".jsonl:%d: the line does not read", half+1))
	require.Len(t, bets, 80, "the other two journals' bets, none of the damaged one's")
	for _, bet := range bets {
		assert.NotEqual(t, "plan01", bet.Plan)
	}
	assert.Equal(t, total-damaged, history.Summarise(bets, history.Query{}).Total.Profit)
}

// sideBySide is a store that hands its journals on all at once, each from
// a goroutine of its own, the last first.
type sideBySide [][][]byte

func (s sideBySide) ReadEvery(_ context.Context, _ []string, each func(state.StoredJournal) error) error {
	errs := make([]error, len(s))
	var wg sync.WaitGroup
	for i := len(s) - 1; i >= 0; i-- {
		wg.Go(func() {
			read := func(record func([]byte) error) error {
				for n, r := range s[i] {
					if r == nil {
						return fmt.Errorf("record %d is damaged", n+1)
					}
					if err := record(r); err != nil {
						return err
					}
				}
				return nil
			}
			errs[i] = each(state.StoredJournal{Seq: i, Name: fmt.Sprintf("plan%02d", i), Where: fmt.Sprintf("journal %d", i), Read: read})
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Journals read side by side come out in the store's order, whatever order
// they end in; a damaged one is named and left out whole.
func TestHistoryJournalsReadSideBySideKeepTheirOrder(t *testing.T) {
	var store sideBySide
	var want int64
	for p := range 8 {
		recs, profit := journalRecords(fmt.Sprintf("plan%02d", p), 30+p)
		if p == 5 {
			recs[len(recs)/2] = nil
		} else {
			want += profit
		}
		store = append(store, recs)
	}
	bets, skipped, err := history.ReadBets(context.Background(), store)
	require.NoError(t, err)
	require.Equal(t, []history.Skipped{{Where: "journal 5", Reason: fmt.Sprintf("record %d is damaged", len(store[5])/2+1)}}, skipped)
	var plans []string
	for _, b := range bets {
		if len(plans) == 0 || plans[len(plans)-1] != b.Plan {
			plans = append(plans, b.Plan)
		}
		assert.Contains(t, b.Label, ":"+b.Plan+":", "a bet in its own plan's journal")
	}
	assert.Equal(t, []string{"plan00", "plan01", "plan02", "plan03", "plan04", "plan06", "plan07"}, plans)
	total := 0
	for p := range 8 {
		if p != 5 {
			total += 30 + p
		}
	}
	require.Len(t, bets, total)
	assert.Equal(t, want, history.Summarise(bets, history.Query{}).Total.Profit)
}

// An outcome entry names its bet by label, plainly or escaped, and its
// bet id is the outcome's, else the entry's; a bet that never ended has
// its created entry's.
func TestHistoryOutcomeEntriesNameTheirBets(t *testing.T) {
	store := sideBySide{{
		[]byte(`{"op":"init","service":"https://api.example.com","account":"a1"}`),
		[]byte(`{"op":"created","label":"bp:p:b1","bet":"b1","race":{"Venue":"V","Code":"Harness","Start":"2026-06-01T12:00:00+10:00"}}`),
		[]byte(`{"op":"created","label":"bp:p:b2","bet":"b2"}`),
		[]byte(`{"op":"created","label":"bp:p:b3","bet":"b3"}`),
		[]byte(`{"op":"outcome","label":"bp:p:\u0062\u0031","bet":"x1","outcome":{"bet_id":"o1","result":"won","profit":2,"result_time":"2026-06-01T03:00:00Z"}}`),
		[]byte(`{"op":"outcome","label":"bp:p:b2","bet":"x\u0032","outcome":{"result":"lost","profit":-1,"result_time":"2026-06-01T03:00:00Z"}}`),
		[]byte(`{"op":"outcome","label":"bp:p:b3","bet":"x3","outcome":null}`),
	}}
	bets, skipped, err := history.ReadBets(context.Background(), store)
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, bets, 3)
	assert.Equal(t, []string{"bp:p:b1", "bp:p:b2", "bp:p:b3"}, []string{bets[0].Label, bets[1].Label, bets[2].Label})
	assert.Equal(t, []string{"o1", "x2", "b3"}, []string{bets[0].BetID, bets[1].BetID, bets[2].BetID})
	assert.Equal(t, int64(200), bets[0].Profit)
	assert.True(t, bets[0].Final)
	assert.False(t, bets[2].Final)
}
