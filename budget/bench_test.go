package budget_test

import (
	"context"
	"testing"

	"github.com/betplan/betplan/budget"
	"github.com/betplan/betplan/state/postgres"
	"github.com/betplan/betplan/state/postgres/pgtest"
)

// The budget's own cost per request, at a rate so high nothing waits:
// one lock of the file.
func BenchmarkFileWait(b *testing.B) {
	acct := budget.AccountOf("http://127.0.0.1:1", "", "")
	f := budget.NewFile(b.TempDir(), acct, 1e9, func(msg string) { b.Fatal(msg) })
	defer f.Close()
	ctx := context.Background()
	for b.Loop() {
		if err := f.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// Four processes' budgets on one file, spent at once.
func BenchmarkFileWaitContended(b *testing.B) {
	acct := budget.AccountOf("http://127.0.0.1:1", "", "")
	dir := b.TempDir()
	files := make(chan *budget.File, 4)
	for range 4 {
		f := budget.NewFile(dir, acct, 1e9, func(msg string) { b.Fatal(msg) })
		defer f.Close()
		files <- f
	}
	b.SetParallelism(1)
	b.RunParallel(func(pb *testing.PB) {
		f := <-files
		defer func() { files <- f }()
		for pb.Next() {
			if err := f.Wait(context.Background()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// One round trip to the database per request.
func BenchmarkPostgresWait(b *testing.B) {
	stateURL, schema := pgtest.Schema(b)
	pgtest.Exec(b, pgtest.ServerURL(b), "CREATE SCHEMA "+schema)
	cfg, err := postgres.ParseURL(stateURL, "", false)
	if err != nil {
		b.Fatal(err)
	}
	acct := budget.AccountOf("http://127.0.0.1:1", "", "")
	p, err := budget.NewPostgres(stateURL, cfg, acct, 1e6, func(msg string) { b.Fatal(msg) }, budget.NewFile(b.TempDir(), acct, 1e6, nil))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	if err := p.Wait(ctx); err != nil { // connects, makes the tables
		b.Fatal(err)
	}
	for b.Loop() {
		if err := p.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
