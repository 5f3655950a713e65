package plan

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
)

func runEnv(env *Env) *Env {
	if env == nil {
		return &Env{}
	}
	return env
}

// holds is a condition of a bet or tip: true when it has none (e is nil),
// else what e gives.
func (e *Expr) holds(env *Env) (bool, error) {
	if e == nil {
		return true, nil
	}
	return e.evalBool(env)
}

// Holds is what the condition gives with env: true when there is none
// (e is nil).
func (e *Expr) Holds(env *Env) (bool, error) { return e.holds(env) }

func (e *Expr) evalBool(env *Env) (bool, error) {
	v, err := run(e.program, runEnv(env))
	if err != nil {
		return false, fmt.Errorf("%q: %s", e.Source, runtimeMessage(err))
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%q gave %v, not true or false", e.Source, v)
	}
	return b, nil
}

func (e *Expr) evalFloat(env *Env) (float64, error) {
	v, err := run(e.program, runEnv(env))
	if err != nil {
		return 0, fmt.Errorf("%q: %s", e.Source, runtimeMessage(err))
	}
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	}
	return 0, fmt.Errorf("%q gave %v, not a number", e.Source, v)
}

func runtimeMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fe.Message
	}
	return err.Error()
}

// Explain shows the values of the names the expression uses, e.g.
// "race.minutes_to_start = 0.5, vars.unit = 5".
func (e *Expr) Explain(env *Env) string {
	if e == nil {
		return ""
	}
	parts := make([]string, 0, len(e.idents))
	for _, id := range e.idents {
		// A plain path such as race.venue: nothing to bound.
		v, err := expr.Run(id.program, runEnv(env))
		if err != nil {
			parts = append(parts, id.path+" = ?")
			continue
		}
		parts = append(parts, id.path+" = "+formatValue(v))
	}
	return strings.Join(parts, ", ")
}

func formatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return strconv.Quote(x)
	case float64:
		if math.Abs(x) < 1e15 {
			return strconv.FormatFloat(math.Round(x*100)/100, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return x.Format(time.RFC3339)
	case []string:
		return "[" + strings.Join(x, ",") + "]"
	case []SessionEnv:
		return fmt.Sprintf("%d sessions", len(x))
	case []MarketEnv:
		return fmt.Sprintf("%d markets", len(x))
	case []BetEnv:
		if len(x) == 1 {
			return "1 bet"
		}
		return fmt.Sprintf("%d bets", len(x))
	case BetEnv:
		return "a bet " + x.Status
	case *BetEnv:
		return "a bet " + x.Status
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return fmt.Sprintf("%d items", rv.Len())
	}
	return fmt.Sprint(v)
}
