package serve

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"sort"
	"time"

	"github.com/betplan/betplan/reporters"
)

// Handler serves /healthz, /readyz, /metrics and /status. With a token,
// every request must carry it (Authorization: Bearer …): one without gets
// 401 and nothing else.
func (s *Server) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metrics.Handler())
	mux.HandleFunc("GET /status", s.status)
	if token == "" {
		return mux
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="betplan serve"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// healthz says the serving loop ticks: 200 while it does, 503 once it has
// not for 10 seconds.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	since := time.Since(time.Unix(0, s.ticked.Load()))
	if since > 10*time.Second {
		http.Error(w, "the serving loop has not ticked for "+since.Round(time.Second).String(), http.StatusServiceUnavailable)
		return
	}
	w.Write([]byte("ok\n"))
}

// Readiness is what /readyz answers.
type Readiness struct {
	Ready bool `json:"ready"`
	// Role is "leader" or "standby"; "unknown" while the state has not
	// answered.
	Role  string `json:"role"`
	Fence int64  `json:"fence,omitempty"`
	// Leader is who leads the account, as this process last saw it.
	Leader string `json:"leader,omitempty"`
	// Service and Credentials say whether the service answers and how
	// long the token has left: the leader's, the only one that sends.
	Service     string      `json:"service"`
	Credentials string      `json:"credentials"`
	Plans       []PlanState `json:"plans"`
	// Invalid are the plan files that do not load now, each problem at
	// its file:line:col.
	Invalid []InvalidPlan `json:"invalid"`
	// Why lists what keeps the process from being ready.
	Why []string `json:"why,omitempty"`
}

// PlanState is one served plan.
type PlanState struct {
	Plan  string `json:"plan"`
	File  string `json:"file"`
	Hash  string `json:"hash"`
	State string `json:"state"` // running, starting, removed, standby
	Note  string `json:"note,omitempty"`
}

// InvalidPlan is a plan file that does not load.
type InvalidPlan struct {
	File     string `json:"file"`
	Where    string `json:"where"`
	Problems string `json:"problems"`
}

// Readiness reads the process's readiness.
func (s *Server) Readiness() Readiness {
	st := s.lead.Status()
	rd := Readiness{Role: "unknown", Plans: []PlanState{}, Invalid: []InvalidPlan{}}
	timing := s.lead.Timing
	switch {
	case st.Leading:
		rd.Role = "leader"
	case !st.Answered.IsZero() && time.Since(st.Answered) < 3*timing.Poll()+5*time.Second:
		rd.Role = "standby"
	default:
		rd.Why = append(rd.Why, "the shared state has not answered the leadership's campaign lately")
	}
	rd.Fence = st.Term.Fence
	if st.Term.Instance != "" {
		rd.Leader = st.Term.Owner.String()
	}
	rd.Service, rd.Credentials = "not checked: only the leader sends", "not checked: only the leader sends"
	if st.Leading {
		answered, failed := s.gate.Reachable()
		switch {
		case failed != "":
			rd.Service = "no answer: " + failed
			rd.Why = append(rd.Why, "the service did not answer")
		case answered.IsZero():
			rd.Service = "no request yet"
		default:
			rd.Service = "answered " + time.Since(answered).Round(time.Second).String() + " ago"
		}
		left, known := s.creds.Left()
		switch {
		case !known:
			rd.Credentials = "expiry not known"
		case left <= 24*time.Hour:
			rd.Credentials = "the token expires in " + roundLeft(left)
			rd.Why = append(rd.Why, "the credentials expire within a day")
		default:
			rd.Credentials = "valid for " + roundLeft(left)
		}
	}
	s.mu.Lock()
	for _, sl := range s.sortedSlots() {
		sl.mu.Lock()
		ps := PlanState{Plan: sl.name, Note: sl.note}
		if sl.version != nil {
			ps.File, ps.Hash = sl.version.File, sl.version.Hash
		}
		switch {
		case sl.retired:
			ps.State = "removed"
		case !st.Leading:
			ps.State = "standby"
		case sl.running != nil:
			ps.State, ps.Note = "running", ""
		default:
			ps.State = "starting"
		}
		sl.mu.Unlock()
		rd.Plans = append(rd.Plans, ps)
	}
	for _, p := range s.problems {
		rd.Invalid = append(rd.Invalid, InvalidPlan{File: p.File, Where: p.Where, Problems: p.Text})
	}
	s.mu.Unlock()
	sort.Slice(rd.Invalid, func(i, j int) bool { return rd.Invalid[i].File < rd.Invalid[j].File })
	for _, p := range rd.Invalid {
		rd.Why = append(rd.Why, "invalid plan: "+p.Where)
	}
	rd.Ready = len(rd.Why) == 0
	return rd
}

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	rd := s.Readiness()
	code := http.StatusOK
	if !rd.Ready {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, rd)
}

// status is status --format json's summary of the folder, as the runs
// stand; a standby sends 503 and who leads.
func (s *Server) status(w http.ResponseWriter, _ *http.Request) {
	sum, _ := s.summary()
	if sum == nil {
		st := s.lead.Status()
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"role": "standby", "leader": st.Term.Owner.String(),
			"error": "this process stands by: the leader serves the plans' status"})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	reporters.WriteSummaryJSON(w, sum)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
