package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

const faultHelp = `inject a fault into the simulated service (repeatable): "[METHOD] PATH KIND [xN]"
  KIND: 500|502|503 (status), 429[:RETRY-AFTER], drop, latency:DUR,
        commit+500 (store, then answer 500), commit+timeout[:DUR], commit+drop, expire-tokens
  PATH ending in * is a prefix; xN applies it N times (x0 = always, default x1)
  e.g. --fault "POST /notification/create/ commit+timeout"`

// parseFault reads one --fault value.
func parseFault(spec string) (sim.Fault, error) {
	var f sim.Fault
	words := strings.Fields(spec)
	if len(words) > 0 && !strings.HasPrefix(words[0], "/") {
		f.Method, words = strings.ToUpper(words[0]), words[1:]
	}
	if len(words) < 2 || len(words) > 3 || !strings.HasPrefix(words[0], "/") {
		return f, fmt.Errorf("fault %q: want \"[METHOD] PATH KIND [xN]\"", spec)
	}
	f.Path, f.Times = words[0], 1
	if len(words) == 3 {
		n, err := strconv.Atoi(strings.TrimPrefix(words[2], "x"))
		if err != nil || !strings.HasPrefix(words[2], "x") || n < 0 {
			return f, fmt.Errorf("fault %q: times must read xN, got %q", spec, words[2])
		}
		f.Times = n
	}
	kind, arg, _ := strings.Cut(words[1], ":")
	dur := func(def time.Duration) (time.Duration, error) {
		if arg == "" {
			return def, nil
		}
		d, err := time.ParseDuration(arg)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("fault %q: %q is not a duration such as 2s", spec, arg)
		}
		return d, nil
	}
	var err error
	switch {
	case kind == "429":
		f.Kind = sim.RateLimit
		f.RetryAfter, err = dur(time.Second)
	case kind == "drop":
		f.Kind = sim.Drop
	case kind == "latency":
		f.Kind = sim.Latency
		f.Latency, err = dur(2 * time.Second)
	case kind == "commit+timeout":
		f.Kind = sim.CommitThenTimeout
		f.Latency, err = dur(0)
	case kind == "commit+drop":
		f.Kind = sim.CommitThenDrop
	case kind == "expire-tokens":
		f.Kind = sim.ExpireTokens
	case strings.HasPrefix(kind, "commit+"):
		f.Kind = sim.CommitThenStatus
		f.Status, err = statusCode(strings.TrimPrefix(kind, "commit+"))
	default:
		f.Kind = sim.StatusFault
		f.Status, err = statusCode(kind)
	}
	if err != nil {
		return f, fmt.Errorf("fault %q: %w", spec, err)
	}
	return f, nil
}

func statusCode(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 400 || n > 599 {
		return 0, fmt.Errorf("unknown fault kind %q (see --help)", s)
	}
	return n, nil
}

// parseFaults reads every --fault value.
func parseFaults(specs []string) ([]sim.Fault, error) {
	var out []sim.Fault
	for _, s := range specs {
		f, err := parseFault(s)
		if err != nil {
			return nil, usagef("%v", err)
		}
		out = append(out, f)
	}
	return out, nil
}
