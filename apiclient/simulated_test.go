package apiclient_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/betplan/betplan/apiclient"
)

// simulatedCodes answers GET /bet/codes/ saying, as `betplan sim` does, that
// the service is a simulation.
func simulatedCodes() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(apiclient.SimulatedHeader, "1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`["Galloping"]`))
	})
}

// The header is believed from a service on this machine only: a proxy or a
// misconfigured service elsewhere must not make a real-money run look like
// a rehearsal.
func TestServesSimulationOnlyFromLoopback(t *testing.T) {
	local := httptest.NewServer(simulatedCodes())
	defer local.Close()
	c, err := apiclient.New(local.URL, apiclient.WithToken("t"))
	must(t, err)
	_, err = c.BetCodes(context.Background())
	must(t, err)
	eq(t, "loopback service says simulated", c.ServesSimulation(), true)

	remote := httptest.NewTLSServer(simulatedCodes())
	defer remote.Close()
	// https://example.com (a name the test certificate holds) reaches the
	// test server: a service off this machine, by its URL.
	hc := remote.Client()
	tr := hc.Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, remote.Listener.Addr().String())
	}
	tr.TLSClientConfig = &tls.Config{RootCAs: tr.TLSClientConfig.RootCAs, ServerName: "example.com"}
	hc.Transport = tr
	c, err = apiclient.New("https://example.com", apiclient.WithToken("t"), apiclient.WithHTTPClient(hc))
	must(t, err)
	_, err = c.BetCodes(context.Background())
	must(t, err)
	eq(t, "remote service says simulated", c.ServesSimulation(), false)
}
