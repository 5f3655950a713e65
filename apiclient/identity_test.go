package apiclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServiceIdentityOneNamePerService(t *testing.T) {
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
		want, err := ServiceIdentity(group[0])
		require.NoError(t, err)
		for _, spelling := range group[1:] {
			got, err := ServiceIdentity(spelling)
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
		id, err := ServiceIdentity(u)
		require.NoError(t, err, u)
		if prev, ok := seen[id]; ok {
			t.Errorf("%s and %s share the identity %s", prev, u, id)
		}
		seen[id] = u
	}
	id, err := ServiceIdentity("http://localhost:80")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1", id)
	id, err = ServiceIdentity("https://API.example.com:443/")
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
