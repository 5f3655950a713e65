package main

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	// Crash tests start this test binary as the real betplan process.
	if os.Getenv("BETPLAN_TEST_EXEC_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], newSystemIO()))
	}
	testscript.Main(m, map[string]func(){
		"betplan": func() { os.Exit(run(context.Background(), os.Args[1:], newSystemIO())) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// A developer's own credentials must never leak into a script.
			for _, k := range []string{"BETPLAN_BASE_URL", "BETPLAN_TOKEN", "BETPLAN_EMAIL", "BETPLAN_PASSWORD"} {
				env.Setenv(k, "")
			}
			return nil
		},
	})
}
