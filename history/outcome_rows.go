package history

import (
	"fmt"

	"github.com/betplan/betplan/state"
)

// A store that keeps outcome entries as rows (state.OutcomeRowsReader)
// hands them to the fold as columns: each is folded as the entry it was
// made from would be (fold.record), its fields read from the columns
// instead of the entry's text. The store makes a row only of an entry
// whose fields are of the types history reads; anything else it hands on
// as a record.

// outcomeRow folds the journal's next outcome entry, given as a row.
func (f *fold) outcomeRow(r *state.OutcomeRow) error {
	f.n++
	o := &f.spare
	*o = outcomeRecord{Sessions: o.Sessions[:0]}
	if r.Outcome {
		if err := f.fillOutcome(r, o); err != nil {
			return fmt.Errorf("record %d does not read (%v)", f.n, err)
		}
	}
	if len(r.Label) == 0 {
		return nil // names no bet
	}
	b := f.betOf(r.Label)
	if b == nil {
		return nil // its outcome was read already
	}
	switch {
	case r.Outcome && o.BetID != "": // the outcome's bet id is the one kept
	case len(r.Bet) > 0:
		b.BetID = string(r.Bet)
	}
	if r.Outcome {
		var at string
		if o.ResultTime.IsZero() && r.Time != nil {
			at = string(r.Time)
		}
		return f.settle(b, o, at)
	}
	return nil
}

// fillOutcome reads a row's outcome fields into o, as decodeOutcome reads
// them from the entry.
func (f *fold) fillOutcome(r *state.OutcomeRow, o *outcomeRecord) error {
	if r.BetID != nil {
		o.BetID = string(r.BetID)
	}
	for _, n := range []struct {
		b []byte
		s *string
	}{{r.Result, &o.Result}, {r.Venue, &o.Venue}, {r.Code, &o.Code}, {r.Day, &o.Day}, {r.Market, &o.Market}, {r.Type, &o.Type}} {
		if n.b != nil {
			*n.s = f.name(n.b)
		}
	}
	for _, n := range []struct {
		name string
		b    []byte
		v    *float64
	}{{"accepted", r.Accepted, &o.Accepted}, {"odds", r.Odds, &o.Odds}, {"profit", r.Profit, &o.Profit}} {
		if n.b != nil && !number(n.b, n.v) {
			return fmt.Errorf("the outcome's %s %s is not a number history reads", n.name, n.b)
		}
	}
	if r.Units != nil {
		var u float64
		if !number(r.Units, &u) {
			return fmt.Errorf("the outcome's units %s is not a number history reads", r.Units)
		}
		o.Units = &u
	}
	if r.Sessions != nil {
		l := lexer{b: r.Sessions, names: f.names}
		if !l.sessions(o) || !l.end() {
			return fmt.Errorf("the outcome's sessions do not read")
		}
	}
	if r.ResultTime != nil {
		if err := o.ResultTime.UnmarshalText(r.ResultTime); err != nil {
			return err
		}
	}
	return nil
}

// number reads a JSON number, all of b, as an entry's is read.
func number(b []byte, v *float64) bool {
	l := lexer{b: b}
	return l.peek() != 'n' && l.num(v) && l.end()
}

// name is b as a string, shared with the records that repeat it.
func (f *fold) name(b []byte) string {
	if v, ok := f.names[string(b)]; ok {
		return v
	}
	s := string(b)
	if len(f.names) < 4096 {
		f.names[s] = s
	}
	return s
}

// created folds a created (or adopted) entry given by its label alone: its
// bet has an outcome in the journal, which says all the entry would.
func (f *fold) created(label []byte) error {
	f.n++
	f.betOf(label)
	return nil
}
