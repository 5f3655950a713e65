package apiclient

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServiceIdentityOneNamePerService(t *testing.T) {
	ids := &Identities{Lookup: names(nil)} // no name resolves: never the hosts file
	same := [][]string{
		{"http://127.0.0.1:8080", "http://localhost:8080", "http://LOCALHOST:8080", "http://[::ffff:127.0.0.1]:8080",
			"http://[::1]:8080", "http://127.0.0.2:8080", "http://localhost.:8080/", "HTTP://LocalHost:8080//", "http://app.localhost:8080",
			"http://localhost:08080"},
		{"http://127.0.0.1", "http://127.0.0.1:80", "http://localhost:80/", "http://[::1]:80"},
		{"https://api.example.com", "https://API.example.com", "https://api.example.com:443", "https://api.example.com.:443/",
			"https://Api.Example.Com/?q=1#x"},
		{"https://api.example.com/v1", "https://API.EXAMPLE.COM:443/v1/", "https://api.example.com/v1//", "https://api.example.com/x/../v1"},
		{"https://[2001:db8::1]:8443", "https://[2001:DB8:0:0:0:0:0:1]:8443"},
	}
	for _, group := range same {
		want, err := ids.Of(group[0])
		require.NoError(t, err)
		for _, spelling := range group[1:] {
			got, err := ids.Of(spelling)
			require.NoError(t, err, spelling)
			assert.Equal(t, want, got, "%s and %s are one service", group[0], spelling)
		}
	}
	// Distinct services stay distinct.
	distinct := []string{
		"http://127.0.0.1:8080", "http://127.0.0.1:8081", "https://127.0.0.1:8080", "http://127.0.0.1",
		"https://api.example.com", "http://api.example.com", "https://api.example.com:8443",
		"https://api.example.com/v1", "https://api.example.com/V1", "https://other.example.com", "https://10.0.0.1",
	}
	seen := map[string]string{}
	for _, u := range distinct {
		id, err := ids.Of(u)
		require.NoError(t, err, u)
		if prev, ok := seen[id]; ok {
			t.Errorf("%s and %s share the identity %s", prev, u, id)
		}
		seen[id] = u
	}
	id, err := ids.Of("http://localhost:80")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1", id)
	id, err = ids.Of("https://API.example.com:443/")
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.com", id)
}

func TestServiceIdentityRefusesWhatNormalizeRefuses(t *testing.T) {
	for _, bad := range []string{"127.0.0.1:8080", "ftp://x", "https://user:pw@api.example.com", "https://"} {
		_, err := ServiceIdentity(bad)
		assert.Error(t, err, bad)
		_, nerr := NormalizeBaseURL(bad)
		assert.Error(t, nerr, bad)
	}
}

// names is a resolver that knows only hosts.
func names(hosts map[string][]string) func(ctx context.Context, host string) ([]string, error) {
	return func(_ context.Context, host string) ([]string, error) {
		if addrs, ok := hosts[host]; ok {
			return addrs, nil
		}
		return nil, errors.New("no such host")
	}
}

// Every spelling of this machine is one service: the unspecified
// addresses, and a name every address of which is this machine's (a
// hosts-file alias of 127.0.0.1, looked up once). A name with an address
// elsewhere, or none, stays as spelled.
func TestServiceIdentityLoopbackNames(t *testing.T) {
	var calls atomic.Int32
	hosts := map[string][]string{
		"betbox":      {"127.0.0.1"},
		"betbox6":     {"::1", "127.0.1.1"},
		"anywhere":    {"0.0.0.0"},
		"split":       {"127.0.0.1", "10.0.0.7"},
		"betting.lan": {"192.168.1.20"},
	}
	lookup := names(hosts)
	ids := &Identities{Lookup: func(ctx context.Context, host string) ([]string, error) {
		calls.Add(1)
		return lookup(ctx, host)
	}}
	for _, u := range []string{"http://0.0.0.0:8080", "http://[::]:8080", "http://[::ffff:0.0.0.0]:8080", "http://betbox:8080",
		"http://BETBOX.:8080/", "http://betbox6:8080", "http://anywhere:8080"} {
		id, err := ids.Of(u)
		require.NoError(t, err, u)
		assert.Equal(t, "http://127.0.0.1:8080", id, u)
	}
	for u, want := range map[string]string{
		"http://split:8080":       "http://split:8080",
		"http://betting.lan:8080": "http://betting.lan:8080",
		"http://unknown:8080":     "http://unknown:8080",
		"https://10.0.0.7":        "https://10.0.0.7",
	} {
		id, err := ids.Of(u)
		require.NoError(t, err, u)
		assert.Equal(t, want, id, u)
	}
	before := calls.Load()
	_, err := ids.Of("http://betbox:9090")
	require.NoError(t, err)
	assert.Equal(t, before, calls.Load(), "a name is looked up once")
}

// NormalizeBaseURL writes a base URL one way whatever its host's case and
// whether it spells the scheme's default port: reports, saved plans and
// the token cache name one service once.
func TestNormalizeBaseURLOneSpelling(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://Betting.Example.com:443", "https://betting.example.com"},
		{"https://betting.example.com/", "https://betting.example.com"},
		{"HTTPS://BETTING.EXAMPLE.COM:443/api/", "https://betting.example.com/api"},
		{"https://betting.example.com:8443/api", "https://betting.example.com:8443/api"},
		{"https://betting.example.com:80", "https://betting.example.com:80"},
		{"http://LocalHost:80/", "http://localhost"},
		{"http://127.0.0.1:8080?x=1#y", "http://127.0.0.1:8080"},
		{"http://127.0.0.1:443", "http://127.0.0.1:443"},
		{"https://[2001:DB8::1]:443/v1", "https://[2001:db8::1]/v1"},
		{"https://[2001:db8::1]:8443", "https://[2001:db8::1]:8443"},
		{"http://[::1]:80", "http://[::1]"},
	} {
		got, err := NormalizeBaseURL(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		id, err := ServiceIdentity(tt.in)
		require.NoError(t, err)
		same, err := ServiceIdentity(got)
		require.NoError(t, err)
		assert.Equal(t, id, same, "%s: the normal form is the same service", tt.in)
	}
}
