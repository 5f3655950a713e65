package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/state"
)

// savedPlanFormat marks a file written by `betplan plan --out`.
const savedPlanFormat = "betplan-saved-plan/1"

// SavedPlan is what `plan --out` saves and `run FILE` applies exactly.
type SavedPlan struct {
	Format         string        `json:"format"`
	PlanFile       string        `json:"plan_file"`
	PlanHash       string        `json:"plan_hash"`
	PlanName       string        `json:"plan_name"`
	BaseURL        string        `json:"base_url"`
	JournalLineage string        `json:"journal_lineage"`
	JournalSerial  int64         `json:"journal_serial"`
	CreatedAt      time.Time     `json:"created_at"`
	Creates        []SavedCreate `json:"creates"`
}

// SavedCreate is one create a saved plan applies.
type SavedCreate struct {
	Label  string  `json:"label"`
	BetID  string  `json:"bet"`
	Amount float64 `json:"amount"`
}

// WriteSavedPlan writes s to path.
func WriteSavedPlan(path string, s *SavedPlan) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadSavedPlan reads a saved plan; ok is false when path is not one.
// Like a plan, it is read only from a regular file of bounded size.
func ReadSavedPlan(path string) (s *SavedPlan, ok bool, err error) {
	b, err := plan.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	var sp SavedPlan
	if json.Unmarshal(b, &sp) != nil || sp.Format != savedPlanFormat {
		return nil, false, nil
	}
	return &sp, true, nil
}

// ApplySaved is `betplan run FILE` for a saved plan: it refuses when the
// plan file or the journal moved on since the plan was saved, then creates
// exactly the saved creates and follows outcomes.
func ApplySaved(ctx context.Context, p *plan.Plan, s *SavedPlan, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opts.OnlyLabels = map[string]float64{}
	for _, c := range s.Creates {
		opts.OnlyLabels[c.Label] = c.Amount
	}
	r := newTracker(p, opts)
	res := r.newResult(KindRun, r.clock.Now())
	err := r.runWithAlerts(ctx, res, func() error {
		switch {
		case p.Hash != s.PlanHash:
			return &RefusedError{Reason: fmt.Sprintf("the plan file changed since the plan was saved (%s, saved %s): run 'betplan plan --out' again", p.Hash, s.PlanHash)}
		case state.ServiceIdentity(s.BaseURL) != state.ServiceIdentity(r.opts.BaseURL):
			// (one service however it is spelled, as its journal and lock)
			return &RefusedError{Reason: fmt.Sprintf("the plan was saved against %s, not %s", s.BaseURL, r.opts.BaseURL)}
		// A journal opened since without a bet entry (a run answered no at
		// the prompt) knows nothing more than the empty one it was saved
		// against.
		case s.JournalLineage == "" && len(r.journal.Labels()) > 0:
			return &RefusedError{Reason: "the journal moved on since the plan was saved (a run started it since): run 'betplan plan --out' again"}
		case s.JournalLineage != "" && r.journal.Lineage() != s.JournalLineage:
			return &RefusedError{Reason: "the journal is not the one the plan was saved against: run 'betplan plan --out' again"}
		case s.JournalLineage != "" && r.journal.Serial() != s.JournalSerial:
			return &RefusedError{Reason: fmt.Sprintf("the journal moved on since the plan was saved (entry %d, saved at %d): run 'betplan plan --out' again", r.journal.Serial(), s.JournalSerial)}
		}
		return nil
	})
	return reported(res, err)
}
