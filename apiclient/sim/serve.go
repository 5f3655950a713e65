package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/betplan/betplan/apiclient"
)

// ErrNotLoopback is the error Serve wraps when asked to listen on an address
// that other machines could reach.
var ErrNotLoopback = errors.New("not a loopback address: the simulated service only serves this machine")

// Server is a Service served over HTTP on a loopback address.
type Server struct {
	URL string // http://host:port, the base URL for a client

	hs   *http.Server
	done chan struct{}
	err  error // written before done is closed
}

// Serve serves svc on addr (host:port; port 0 picks a free one) until the
// server is shut down. It refuses, before listening, an address that is
// not loopback (apiclient.IsLoopbackAddr) with an error wrapping ErrNotLoopback; a
// failure to listen is net.Listen's error as it is.
func Serve(svc *Service, addr string) (*Server, error) {
	if !apiclient.IsLoopbackAddr(addr) {
		return nil, fmt.Errorf("%s is %w", addr, ErrNotLoopback)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{
		URL:  "http://" + ln.Addr().String(),
		hs:   &http.Server{Handler: sayServed(svc), ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		if err := s.hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.err = err
		}
		close(s.done)
	}()
	return s, nil
}

// sayServed marks every response of a served simulated service
// (apiclient.SimulatedHeader), so a client knows a rehearsal from a real
// run: its reports are kept apart from the real service's.
func sayServed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(apiclient.SimulatedHeader, "1")
		h.ServeHTTP(w, r)
	})
}

// Shutdown stops listening and waits for the requests in flight to finish,
// or for ctx to be done (http.Server.Shutdown).
func (s *Server) Shutdown(ctx context.Context) error { return s.hs.Shutdown(ctx) }

// Close stops listening and closes every connection at once.
func (s *Server) Close() error { return s.hs.Close() }

// Done is closed when the server stops serving, by Shutdown, Close or a
// failure of the listener.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err returns why serving stopped once Done is closed: nil after Shutdown or
// Close, and nil while still serving.
func (s *Server) Err() error {
	select {
	case <-s.done:
		return s.err
	default:
		return nil
	}
}
