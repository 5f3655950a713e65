package sim_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient"
	"github.com/betplan/betplan/apiclient/sim"
)

func TestServeOnLoopback(t *testing.T) {
	svc := sim.New(sim.Options{Seed: 1, Clock: sim.NewManualClock(start)})
	srv, err := sim.Serve(svc, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") || strings.HasSuffix(srv.URL, ":0") {
		t.Fatalf("URL = %q, want http://127.0.0.1:<port>", srv.URL)
	}
	hc := &http.Client{Timeout: 5 * time.Second}
	get := func() (int, string, error) {
		req, _ := http.NewRequest("GET", srv.URL+"/bet/codes/", nil)
		req.Header.Set("Authorization", "Token "+svc.Token())
		res, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, string(b), err
	}
	status, body, err := get()
	if err != nil {
		t.Fatal(err)
	}
	if want := `["Galloping","Harness","Greyhounds"]`; status != 200 || body != want {
		t.Fatalf("GET /bet/codes/ = %d %s, want 200 %s", status, body, want)
	}
	if n := len(svc.Requests()); n != 1 {
		t.Fatalf("the service logged %d requests, want 1", n)
	}
	// A served simulated service says so: its reports are kept apart.
	c, err := apiclient.New(srv.URL, apiclient.WithToken(svc.Token()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.BetCodes(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !c.ServesSimulation() {
		t.Fatal("a served simulated service did not say it is simulated")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	select {
	case <-srv.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed after Shutdown")
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("Err after Shutdown = %v, want nil", err)
	}
	hc.CloseIdleConnections()
	if _, _, err := get(); err == nil {
		t.Fatal("a request after Shutdown was answered")
	}
}

func TestServeClose(t *testing.T) {
	srv, err := sim.Serve(sim.New(sim.Options{}), "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-srv.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed after Close")
	}
	if err := srv.Err(); err != nil {
		t.Fatalf("Err after Close = %v, want nil", err)
	}
}

// TestServeRefusesOtherAddresses never listens on what it refuses: the
// refusal is ErrNotLoopback, which Serve returns before net.Listen.
func TestServeRefusesOtherAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.168.1.1:8787", ":8787", "[::]:0", "nonsense"} {
		t.Run(addr, func(t *testing.T) {
			srv, err := sim.Serve(sim.New(sim.Options{}), addr)
			if !errors.Is(err, sim.ErrNotLoopback) {
				t.Fatalf("Serve(%q) error = %v, want ErrNotLoopback", addr, err)
			}
			if srv != nil {
				srv.Close()
				t.Fatalf("Serve(%q) returned a server", addr)
			}
			want := addr + " is not a loopback address: the simulated service only serves this machine"
			if err.Error() != want {
				t.Errorf("error = %q, want %q", err, want)
			}
		})
	}
}
