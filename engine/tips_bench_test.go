package engine_test

import (
	"context"
	"testing"

	"github.com/betplan/betplan/engine"
)

// BenchmarkTipsterCard rehearses a tip on every race of two and a half hours of
// the simulated world's card (one for_each_race tip, a 30-minute
// pre-alert looked at ahead each tick), end to end over loopback HTTP.
func BenchmarkTipsterCard(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		w := newWorld(b)
		p := w.plan(`version: 1
name: card-tips
poll: {interval: 30s, timeout: 3h}
prealert: {before: 30m}
tips:
  - {id: every, for_each_race: race.minutes_to_start <= 150, market: Fixed Win, selection: "1", amount_units: 1, odds: 3, max_odds: 60, bookies: "41", when: race.minutes_to_start <= 10}
`)
		b.StartTimer()
		res, err := engine.Run(context.Background(), p, w.tipsterOptions(w.client()))
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if len(res.Tips) == 0 || len(w.svc.PublishedTips()) != len(res.Tips) {
			b.Fatalf("%d tips, %d published", len(res.Tips), len(w.svc.PublishedTips()))
		}
		b.ReportMetric(float64(len(res.Tips)), "tips/op")
		b.StartTimer()
	}
}
