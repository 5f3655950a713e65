package apiclient_test

import (
	"testing"

	"github.com/betplan/betplan/apiclient"
)

func TestIsLoopbackAddr(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:8787", true},
		{"127.0.0.1:0", true},
		{"127.9.9.9:80", true},
		{"[::1]:8787", true},
		{"localhost:8787", true},
		{"LocalHost:8787", true},
		{"0.0.0.0:8787", false},
		{":8787", false},
		{"[::]:8787", false},
		{"192.168.1.1:8787", false},
		{"192.0.2.1:8787", false},
		{"app.localhost:8787", false},
		{"example.com:80", false},
		{"localhost", false},
		{"127.0.0.1", false},
		{"nonsense", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := apiclient.IsLoopbackAddr(tt.addr); got != tt.want {
			t.Errorf("IsLoopbackAddr(%q) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}
