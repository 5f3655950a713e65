package plan_test

import (
	"fmt"
	"reflect"
	"testing"
)

// Small assertions: testify's assert/yaml needs a go.sum entry the module
// does not have yet, and these few are all the tests need.

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equal(t testing.TB, want, got any, msg ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("%s\nwant: %#v\n got: %#v", fmt.Sprint(msg...), want, got)
	}
}

func check(t testing.TB, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Errorf(format, args...)
	}
}
