package bet_test

import (
	"errors"
	"math"
	"testing"

	"github.com/betplan/betplan/engine/bet"
)

func TestCents(t *testing.T) {
	tests := []struct {
		name    string
		dollars float64
		want    int64
		corrupt bool
	}{
		{name: "a stake", dollars: 10, want: 1000},
		{name: "a loss", dollars: -4.25, want: -425},
		{name: "half a cent rounds away from zero", dollars: 0.125, want: 13},
		{name: "and below zero", dollars: -0.125, want: -13},
		{name: "a float's tenth", dollars: 0.1 + 0.2, want: 30},
		{name: "the bound", dollars: bet.MaxDollars, want: 100_000_000_000_000},
		{name: "the bound below zero", dollars: -bet.MaxDollars, want: -100_000_000_000_000},
		{name: "past the bound", dollars: bet.MaxDollars + 0.01, corrupt: true},
		{name: "a profit of 1e300", dollars: 1e300, corrupt: true},
		{name: "just past int64 cents", dollars: -92233720368547758.08, corrupt: true},
		{name: "infinity", dollars: math.Inf(-1), corrupt: true},
		{name: "not a number", dollars: math.NaN(), corrupt: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bet.Cents(tt.dollars)
			var amount *bet.AmountError
			if tt.corrupt != errors.As(err, &amount) {
				t.Fatalf("Cents(%v) = %d, %v; want corrupt: %v", tt.dollars, got, err, tt.corrupt)
			}
			if !tt.corrupt && got != tt.want {
				t.Errorf("Cents(%v) = %d, want %d", tt.dollars, got, tt.want)
			}
			if tt.corrupt && got != 0 {
				t.Errorf("Cents(%v) = %d beside its error, want 0", tt.dollars, got)
			}
		})
	}
}

func TestAmountErrorNamesTheAmount(t *testing.T) {
	_, err := bet.Cents(1e300)
	if want := "1e+300 is not an amount of money (not finite, or beyond ±$1,000,000,000,000)"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestAddCents(t *testing.T) {
	tests := []struct {
		a, b, want int64
		ok         bool
	}{
		{1, 2, 3, true},
		{-5, 2, -3, true},
		{math.MaxInt64, 0, math.MaxInt64, true},
		{math.MaxInt64, 1, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MinInt64, math.MaxInt64, -1, true},
	}
	for _, tt := range tests {
		got, ok := bet.AddCents(tt.a, tt.b)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("AddCents(%d, %d) = %d, %v; want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}
