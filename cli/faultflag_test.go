package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/apiclient/sim"
)

func TestParseFault(t *testing.T) {
	tests := []struct {
		spec string
		want sim.Fault
	}{
		{"POST /notification/create/ commit+timeout", sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.CommitThenTimeout, Times: 1}},
		{"post /notification/create/ commit+502 x2", sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.CommitThenStatus, Status: 502, Times: 2}},
		{"/notification/* 503 x0", sim.Fault{Path: "/notification/*", Kind: sim.StatusFault, Status: 503, Times: 0}},
		{"GET /competition/namecodes/ 429:3s", sim.Fault{Method: "GET", Path: "/competition/namecodes/", Kind: sim.RateLimit, RetryAfter: 3 * time.Second, Times: 1}},
		{"GET /bookieaccount/ latency:250ms x3", sim.Fault{Method: "GET", Path: "/bookieaccount/", Kind: sim.Latency, Latency: 250 * time.Millisecond, Times: 3}},
		{"POST /notification/create/ drop", sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.Drop, Times: 1}},
		{"POST /notification/create/ commit+drop", sim.Fault{Method: "POST", Path: "/notification/create/", Kind: sim.CommitThenDrop, Times: 1}},
		{"GET /bet/notification/* expire-tokens", sim.Fault{Method: "GET", Path: "/bet/notification/*", Kind: sim.ExpireTokens, Times: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := parseFault(tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	for spec, msg := range map[string]string{
		"POST":                                "want \"[METHOD] PATH KIND [xN]\"",
		"POST notification/create/ 500":       "want \"[METHOD] PATH KIND [xN]\"",
		"POST /notification/create/ 200":      "unknown fault kind \"200\"",
		"POST /notification/create/ explode":  "unknown fault kind \"explode\"",
		"POST /notification/create/ 500 two":  "times must read xN",
		"GET /bookieaccount/ latency:soon":    "is not a duration",
		"POST /notification/create/ 500 x1 y": "want \"[METHOD] PATH KIND [xN]\"",
	} {
		_, err := parseFault(spec)
		require.Error(t, err, spec)
		assert.Contains(t, err.Error(), msg, spec)
	}
}
