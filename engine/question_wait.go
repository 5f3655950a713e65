package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"
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
