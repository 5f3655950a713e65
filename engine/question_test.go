package engine

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The run's one question waits for every plan's part (or its end), is
// asked once whoever asks first, and its answer holds for every plan.
func TestQuestionAskedOnceForEveryPlan(t *testing.T) {
	var asked atomic.Int32
	var text string
	q := NewQuestion(context.Background(), func(summary string) (bool, error) {
		asked.Add(1)
		text = summary
		return true, nil
	}, []string{"alpha", "beta", "gone"})
	q.arrive(betsAsked{plan: "beta", bets: 1, requested: 6, atRisk: 6, text: `Plan "beta" …`, file: "betplan.yaml", account: "Account limits of betplan.yaml, every plan together, over all time: max_loss $30.00."})

	answers := make(chan bool, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := q.put(nil)
			assert.NoError(t, err)
			answers <- ok
		}()
	}
	// Nobody is asked while a plan has not said what it may create.
	q.arrive(betsAsked{plan: "alpha", bets: 2, requested: 8, atRisk: 8, text: `Plan "alpha" …`, file: "betplan.yaml", account: "Account limits of betplan.yaml: counted once"})
	assert.Zero(t, asked.Load(), "asked before every plan arrived")
	q.leave("gone")
	wg.Wait()
	close(answers)
	for ok := range answers {
		assert.True(t, ok)
	}
	require.EqualValues(t, 1, asked.Load())
	assert.True(t, strings.HasPrefix(text, "2 plans of this run: up to 3 bets may be created, $14.00 requested, $14.00 at risk."), text)
	assert.Less(t, strings.Index(text, `Plan "alpha"`), strings.Index(text, `Plan "beta"`))
	assert.Equal(t, 1, strings.Count(text, "Account limits of betplan.yaml"), "one account file, told once")

	// A plan that asks later in the run gets the same answer, unasked.
	ok, err := q.put(nil)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.EqualValues(t, 1, asked.Load())
}

// Ctrl-C while the question waits for the other plans ends the wait.
func TestQuestionWaitEndsWithTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q := NewQuestion(ctx, func(string) (bool, error) { t.Fatal("asked"); return false, nil }, []string{"alpha", "beta"})
	q.arrive(betsAsked{plan: "alpha", bets: 1})
	cancel()
	_, err := q.put(nil)
	assert.ErrorIs(t, err, context.Canceled)
}

// A question held back by a plan that has not arrived (waiting for its
// lock) says which plan it waits for, once, and is asked when it comes.
func TestQuestionSaysWhatItWaitsFor(t *testing.T) {
	quiet := questionQuiet
	questionQuiet = 50 * time.Millisecond
	t.Cleanup(func() { questionQuiet = quiet })
	q := NewQuestion(context.Background(), func(string) (bool, error) { return true, nil }, []string{"alpha", "beta"})
	q.arrive(betsAsked{plan: "alpha", bets: 1})
	said := make(chan string, 4)
	go func() {
		time.Sleep(300 * time.Millisecond)
		q.arrive(betsAsked{plan: "beta", bets: 1})
	}()
	ok, err := q.put(func(line string) { said <- line })
	require.NoError(t, err)
	assert.True(t, ok)
	close(said)
	var lines []string
	for l := range said {
		lines = append(lines, l)
	}
	require.Len(t, lines, 1, "told once")
	assert.Contains(t, lines[0], "waits for plan beta to say what it may create")
}
