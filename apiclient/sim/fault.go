package sim

import (
	"net/http"
	"strings"
	"time"
)

// FaultKind is what an injected fault does to a matching request.
type FaultKind int

const (
	// Latency sleeps Fault.Latency of real time (ctx-aware), then serves.
	Latency FaultKind = iota + 1
	// StatusFault answers Fault.Status (default 500) before doing anything.
	StatusFault
	// RateLimit answers 429 with Retry-After (whole seconds, at least 1).
	RateLimit
	// Drop closes the connection without a response, before doing anything.
	Drop
	// CommitThenStatus does the request (e.g. stores the notification),
	// then answers Fault.Status instead of the real response.
	CommitThenStatus
	// CommitThenTimeout does the request, then hangs for Fault.Latency (or
	// until the client goes away) and closes the connection.
	CommitThenTimeout
	// CommitThenDrop does the request, then closes the connection without
	// a response.
	CommitThenDrop
	// ExpireTokens expires every token issued so far, then serves normally
	// (so the request itself gets a 401).
	ExpireTokens
)

func (k FaultKind) String() string {
	switch k {
	case Latency:
		return "Latency"
	case StatusFault:
		return "StatusFault"
	case RateLimit:
		return "RateLimit"
	case Drop:
		return "Drop"
	case CommitThenStatus:
		return "CommitThenStatus"
	case CommitThenTimeout:
		return "CommitThenTimeout"
	case CommitThenDrop:
		return "CommitThenDrop"
	case ExpireTokens:
		return "ExpireTokens"
	}
	return "FaultKind(?)"
}

// Fault is an injected misbehaviour.
type Fault struct {
	Method string // empty matches any method
	// Path matches the request path exactly, or as a prefix when it ends
	// with '*' ("/bet/notification/*"). Empty matches any path.
	Path       string
	Kind       FaultKind
	Times      int           // matching requests it applies to; 0 = until cleared
	Status     int           // StatusFault, CommitThenStatus; default 500
	Latency    time.Duration // Latency; CommitThenTimeout's hang (0 = until the client leaves)
	RetryAfter time.Duration // RateLimit
}

func (f *Fault) status() int {
	if f.Status == 0 {
		return http.StatusInternalServerError
	}
	return f.Status
}

func (f *Fault) matches(r *http.Request) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, r.Method) {
		return false
	}
	switch {
	case f.Path == "":
		return true
	case strings.HasSuffix(f.Path, "*"):
		return strings.HasPrefix(r.URL.Path, strings.TrimSuffix(f.Path, "*"))
	default:
		return r.URL.Path == f.Path
	}
}

type activeFault struct {
	Fault
	left int // -1 = unlimited
}

// InjectFault adds a fault. Faults apply in order of injection: a request
// gets the first one still active that matches it.
func (s *Service) InjectFault(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.faults = append(s.faults, &activeFault{Fault: f, left: left})
}

// ClearFaults removes every injected fault.
func (s *Service) ClearFaults() {
	s.mu.Lock()
	s.faults = nil
	s.mu.Unlock()
}

// takeFault logs the request's arrival and picks the fault it gets, if any.
func (s *Service) takeFault(r *http.Request, entry *Request) *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, entry)
	for i, af := range s.faults {
		if !af.matches(r) {
			continue
		}
		f := af.Fault
		if af.left > 0 {
			af.left--
			if af.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		entry.Fault = f.Kind.String()
		return &f
	}
	return nil
}
