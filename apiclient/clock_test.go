package apiclient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
)

func TestSleepWaits(t *testing.T) {
	start := time.Now()
	if err := apiclient.Sleep(context.Background(), 20*time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v, want nil", err)
	}
	if got := time.Since(start); got < 20*time.Millisecond {
		t.Errorf("Sleep returned after %v, want at least 20ms", got)
	}
}

func TestSleepStopsWhenContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	start := time.Now()
	err := apiclient.Sleep(ctx, time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep = %v, want context.Canceled", err)
	}
	if got := time.Since(start); got > 10*time.Second {
		t.Errorf("Sleep returned after %v, want soon after the cancel", got)
	}
}

func TestSleepZeroReportsADoneContext(t *testing.T) {
	if err := apiclient.Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v, want nil", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := apiclient.Sleep(ctx, -time.Second); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(-1s) on a done context = %v, want context.Canceled", err)
	}
}

func TestRealIsTheWallClock(t *testing.T) {
	before := time.Now()
	now := apiclient.RealClock().Now()
	if now.Before(before) || now.Sub(before) > time.Minute {
		t.Errorf("Real().Now() = %v, want about %v", now, before)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := apiclient.RealClock().Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Real().Sleep on a done context = %v, want context.Canceled", err)
	}
}
