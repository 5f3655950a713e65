package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/betplan/betplan/engine/book"
)

// questionQuiet is how long the run's one question waits for the other
// plans before it says what it waits for: they usually arrive at once,
// but a plan waiting for its lock (--lock-timeout) holds the question
// back for as long, and a silent terminal looks like a hang.
var questionQuiet = 2 * time.Second

// waitAll waits for every plan's part, or the run's end; once the wait
// lasts past questionQuiet, say (if set) is told once which plans it
// waits for.
func (q *Question) waitAll(say func(string)) error {
	quiet := time.NewTimer(questionQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-q.all:
			return nil
		case <-q.ctx.Done():
			return q.ctx.Err()
		case <-quiet.C:
			if say != nil {
				say(q.waitingWords())
			}
		}
	}
}

// waitingWords names the plans the question still waits for.
func (q *Question) waitingWords() string {
	q.mu.Lock()
	names := make([]string, 0, len(q.waiting))
	for p := range q.waiting {
		names = append(names, p)
	}
	q.mu.Unlock()
	sort.Strings(names)
	return fmt.Sprintf("the run's one question waits for %s %s to say what it may create (a plan waiting for its lock holds it back, up to --lock-timeout)",
		plural(len(names), "plan", "plans"), strings.Join(names, ", "))
}

// Question is the one confirmation of a run of several plans. Each plan
// says what it may create before its first tick's creates (arrive, or
// leave when it ends first); the first plan about to create waits for
// them all and asks once, listing every plan's bets, ready and waiting,
// and the account's limits; the answer holds for every plan's bets of
// the run, then and later.
type Question struct {
	ctx context.Context
	ask func(string) (bool, error)

	mu      sync.Mutex
	waiting map[string]bool
	parts   []betsAsked
	all     chan struct{} // closed once every plan arrived or left
	asked   bool
	done    chan struct{} // closed once answered
	ok      bool
	err     error
}

// betsAsked is what a confirmation says of one plan: how many bets it may
// create, what they request and put at risk, in words (confirmSummary).
type betsAsked struct {
	plan              string
	bets              int
	requested, atRisk float64
	tips              bool // it has tips to publish
	text              string
	// account is the account's limits and their use, in words; file is
	// the account file ("" without account limits).
	account, file string
}

// arrive brings a plan's part of the question.
func (q *Question) arrive(part betsAsked) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.waiting[part.plan] {
		return
	}
	if part.bets > 0 || part.tips {
		q.parts = append(q.parts, part)
	}
	q.arrivedLocked(part.plan)
}

// NewQuestion is the question of a run of the plans named, put with ask;
// ctx ends the wait for the plans (Ctrl-C).
func NewQuestion(ctx context.Context, ask func(string) (bool, error), plans []string) *Question {
	q := &Question{ctx: ctx, ask: ask, waiting: map[string]bool{}, all: make(chan struct{}), done: make(chan struct{})}
	for _, p := range plans {
		q.waiting[p] = true
	}
	if len(q.waiting) == 0 {
		close(q.all)
	}
	return q
}

// leave is a plan that ends without a part (or after giving it).
func (q *Question) leave(plan string) {
	if q == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.arrivedLocked(plan)
}

func (q *Question) arrivedLocked(plan string) {
	if !q.waiting[plan] {
		return
	}
	delete(q.waiting, plan)
	if len(q.waiting) == 0 {
		close(q.all)
	}
}

// put waits for every plan's part and returns the one answer: the first
// caller asks, the others wait for what it was told. A wait for the other
// plans that lasts is told with say (question_wait.go).
func (q *Question) put(say func(string)) (bool, error) {
	if err := q.waitAll(say); err != nil {
		return false, err
	}
	q.mu.Lock()
	if q.asked {
		q.mu.Unlock()
		select {
		case <-q.done:
		case <-q.ctx.Done():
			return false, q.ctx.Err()
		}
		return q.ok, q.err
	}
	q.asked = true
	summary := q.summary()
	q.mu.Unlock()
	q.ok, q.err = q.ask(summary)
	close(q.done)
	return q.ok, q.err
}

// summary is the question's text: the run's sums, each plan's bets and
// limits, and each account file's limits once. q.mu is held.
func (q *Question) summary() string {
	sort.Slice(q.parts, func(i, j int) bool { return q.parts[i].plan < q.parts[j].plan })
	var bets int
	var requested, atRisk book.Total
	for _, p := range q.parts {
		bets += p.bets
		requested.Add(p.requested)
		atRisk.Add(p.atRisk)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s of this run: up to %d %s may be created, %s requested, %s at risk. One yes covers every bet of these plans in this run, now and later.",
		len(q.parts), plural(len(q.parts), "plan", "plans"), bets, plural(bets, "bet", "bets"), usd(requested.Dollars()), usd(atRisk.Dollars()))
	files := map[string]bool{}
	for _, p := range q.parts {
		b.WriteString("\n\n" + p.text)
	}
	for _, p := range q.parts {
		if p.account != "" && !files[p.file] {
			files[p.file] = true
			b.WriteString("\n\n" + p.account)
		}
	}
	return b.String()
}
