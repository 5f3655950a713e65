package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/betplan/betplan/plan"
)

// Preview is `betplan plan`: read-only, it says for each bet what run would
// do now. It takes no lock and writes nothing; one scan of the service's
// notifications finds labels that exist already.
func Preview(ctx context.Context, p *plan.Plan, opts Options) (*Result, *SavedPlan, error) {
	r := newRun(p, opts)
	res := r.newResult(KindPlan, r.clock.Now())
	j, err := ReadJournal(JournalPath(r.opts.StateDir, p.Name))
	if err != nil {
		return res, nil, err
	}
	r.journal = j
	if err := r.refresh(ctx); err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	existing, err := r.scanPrefix(ctx)
	if err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	exists := map[string]int64{}
	for _, n := range existing {
		exists[n.Label] = int64(n.ID)
	}
	if err := r.expand(); err != nil {
		r.finish(res, err)
		return res, nil, err
	}
	r.followJournal()

	now := r.clock.Now()
	committed, count := j.Committed()
	planned := committed
	saved := &SavedPlan{
		Format: savedPlanFormat, PlanFile: r.opts.PlanFile, PlanHash: p.Hash, PlanName: p.Name,
		BaseURL: r.opts.BaseURL, JournalLineage: j.Lineage(), JournalSerial: j.Serial(), CreatedAt: now.UTC(),
	}
	res.Bets = res.Bets[:0]
	r.sortInstances()
	for _, in := range r.insts {
		b := r.previewOne(in, now, exists, &planned, &count)
		res.Bets = append(res.Bets, b)
		if b.Action == ActionCreate {
			saved.Creates = append(saved.Creates, SavedCreate{Label: b.Label, BetID: b.ID, Amount: in.amount})
		}
	}
	res.Limits.Committed, res.Limits.CreatedBets = committed, len(existing)
	if c, n := j.Committed(); n > res.Limits.CreatedBets {
		res.Limits.Committed, res.Limits.CreatedBets = c, n
	}
	res.Limits.Planned = roundCents(planned - committed) // what this preview would add
	res.FinishedAt = r.clock.Now()
	res.EndReason = "completed"
	res.ComputeTotals()
	return res, saved, nil
}

// previewOne decides what run would do with one instance now.
func (r *run) previewOne(in *instance, now time.Time, exists map[string]int64, planned *float64, count *int) BetResult {
	if in.status == StatusWaiting && in.notifID == 0 {
		if id, ok := exists[in.label]; ok {
			in.notifID = id
			b := in.result()
			b.Action, b.Status = ActionAdopt, StatusCreated
			b.Reason = fmt.Sprintf("notification %d already carries this label: run adopts it, never creates", id)
			return b
		}
	}
	if in.status != StatusWaiting {
		b := in.result()
		b.Action = ActionNone
		if in.status == StatusUnresolved {
			b.Action = ActionUnresolved
		} else if in.notifID != 0 {
			b.Reason = fmt.Sprintf("created by an earlier run: notification %d", in.notifID)
		}
		return b
	}
	if s := r.journal.State(in.label); s != nil && s.Pending {
		b := in.result()
		b.Action = ActionAdopt
		b.Reason = "an earlier create may have landed: run looks the label up over the grace window first"
		return b
	}
	if in.race == nil || !now.Before(in.race.StartTime.Time) {
		b := in.result()
		b.Action, b.Status = ActionSkip, StatusSkipped
		b.Reason = "the race has started"
		return b
	}
	env := r.env(in.race, now)
	if amount, err := in.bet.Amount(env); err == nil {
		in.amount = amount
	}
	ready, err := in.bet.Ready(env)
	b := in.result()
	switch {
	case err != nil:
		b.Action, b.Status = ActionSkip, StatusFailed
		b.Reason = fmt.Sprintf("evaluating when: %v", err)
	case !ready:
		b.Action = ActionWait
		b.Reason = fmt.Sprintf("waiting for %q (%s)", in.bet.When.String(), in.bet.When.Explain(env))
	default:
		in.status = StatusWaiting
		if reason := r.previewLimits(in, *planned, *count); reason != "" {
			b.Action = ActionRefuse
			b.Reason = "run would refuse: " + reason
			return b
		}
		if reason := r.checkBot(in); reason != "" && !r.opts.AllowNoBot {
			b.Action = ActionRefuse
			b.Reason = "run would refuse: " + reason
			return b
		}
		b.Action = ActionCreate
		b.Reason = "ready: run would create it now"
		*planned += in.amount
		*count++
	}
	return b
}

func (r *run) previewLimits(in *instance, planned float64, count int) string {
	l := r.plan.Limits
	if err := l.CheckBet(in.amount); err != nil {
		return err.Error()
	}
	if l.MaxTotalStake != nil && planned+in.amount > *l.MaxTotalStake+1e-9 {
		return fmt.Sprintf("max_total_stake %.2f: %.2f committed or planned before this bet, which adds %.2f", *l.MaxTotalStake, planned, in.amount)
	}
	if l.MaxBets != nil && count+1 > *l.MaxBets {
		return fmt.Sprintf("max_bets %d reached", *l.MaxBets)
	}
	return ""
}

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
func ReadSavedPlan(path string) (s *SavedPlan, ok bool, err error) {
	b, err := os.ReadFile(path)
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
	opts.OnlyLabels = map[string]float64{}
	for _, c := range s.Creates {
		opts.OnlyLabels[c.Label] = c.Amount
	}
	r := newRun(p, opts)
	res := r.newResult(KindRun, r.clock.Now())
	err := r.runLocked(ctx, func() error {
		switch {
		case p.Hash != s.PlanHash:
			return &RefusedError{Reason: fmt.Sprintf("the plan file changed since the plan was saved (%s, saved %s): run 'betplan plan --out' again", p.Hash, s.PlanHash)}
		case s.BaseURL != r.opts.BaseURL:
			return &RefusedError{Reason: fmt.Sprintf("the plan was saved against %s, not %s", s.BaseURL, r.opts.BaseURL)}
		case s.JournalLineage == "" && !r.journal.Fresh():
			return &RefusedError{Reason: "the journal moved on since the plan was saved (a run started it since): run 'betplan plan --out' again"}
		case s.JournalLineage != "" && r.journal.Lineage() != s.JournalLineage:
			return &RefusedError{Reason: "the journal is not the one the plan was saved against: run 'betplan plan --out' again"}
		case s.JournalLineage != "" && r.journal.Serial() != s.JournalSerial:
			return &RefusedError{Reason: fmt.Sprintf("the journal moved on since the plan was saved (entry %d, saved at %d): run 'betplan plan --out' again", r.journal.Serial(), s.JournalSerial)}
		}
		if err := r.start(ctx); err != nil {
			return err
		}
		return r.loop(ctx)
	})
	r.finish(res, err)
	return res, err
}
