package sim_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

// ExampleNew serves a simulated service on a loopback address and calls it
// as a client would, with the token the service hands out.
func ExampleNew() {
	clock := sim.NewManualClock(time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC))
	svc := sim.New(sim.Options{Seed: 42, Clock: clock})
	srv := httptest.NewServer(svc) // or: sim.Serve(svc, "127.0.0.1:0")
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/bookieaccount/4419/", nil)
	req.Header.Set("Authorization", "Token "+svc.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	fmt.Println(res.Status)
	for _, s := range svc.Sessions() {
		fmt.Println(s.ID, s.Bookie, s.DisplayName, s.BotRunning)
	}
	// Output:
	// 200 OK
	// 4417 Sportsbet Main Sportsbet true
	// 4418 Ladbrokes Ladbrokes 2 true
	// 4419 TAB TAB spare false
}

// ExampleServe serves a simulated service on a free loopback port, as
// `betplan sim` does; an address other machines could reach is refused.
func ExampleServe() {
	svc := sim.New(sim.Options{Seed: 42})
	srv, err := sim.Serve(svc, "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown(context.Background())

	req, _ := http.NewRequest("GET", srv.URL+"/bet/codes/", nil)
	req.Header.Set("Authorization", "Token "+svc.Token())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Println(res.Status, string(body))

	_, err = sim.Serve(svc, "0.0.0.0:8787")
	fmt.Println(err)
	// Output:
	// 200 OK ["Galloping","Harness","Greyhounds"]
	// 0.0.0.0:8787 is not a loopback address: the simulated service only serves this machine
}
