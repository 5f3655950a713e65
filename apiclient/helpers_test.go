package apiclient_test

import (
	"strings"
	"testing"
)

// The module's go.sum lacks testify's own dependencies (go.yaml.in/yaml/v3,
// go-spew, go-difflib), and this package may not run go mod tidy, so these
// tests use the standard library only.

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func eq[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func contains(t testing.TB, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s = %q, want it to contain %q", what, s, sub)
	}
}
