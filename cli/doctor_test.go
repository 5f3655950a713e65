package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/betplan/betplan/apiclient/sim"
)

// doctor with --state reads the shared state (it writes nothing there) and
// says whether it is reachable; a database that does not answer makes the
// account not ready, with the URL's password never shown.
func TestDoctorSharedState(t *testing.T) {
	t.Parallel()
	state, _ := sharedState(t)
	svc := sim.New(sim.Options{})
	srv := httptest.NewServer(svc)
	defer srv.Close()
	env := map[string]string{"BETPLAN_BASE_URL": srv.URL, "BETPLAN_TOKEN": svc.Token()}
	doctor := func(stateURL string) (int, map[string]any, string) {
		sys, s := testIO(env)
		out, errb := s.Stdout, s.Stderr
		code := execute(context.Background(), []string{"doctor", "--format", "json", "--state", stateURL}, sys)
		var rep map[string]any
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("doctor output is not JSON: %v\n%s%s", err, out.String(), errb.String())
		}
		return code, rep, out.String() + errb.String()
	}
	stateCheck := func(rep map[string]any) map[string]any {
		for _, c := range rep["checks"].([]any) {
			if c := c.(map[string]any); c["name"] == "state" {
				return c
			}
		}
		t.Fatalf("no state check in %v", rep["checks"])
		return nil
	}

	code, rep, all := doctor(state)
	if code != exitOK || rep["ready"] != true {
		t.Fatalf("reachable state: exit %d, ready %v\n%s", code, rep["ready"], all)
	}
	if c := stateCheck(rep); c["level"] != "ok" || !strings.Contains(c["detail"].(string), "reachable") {
		t.Errorf("state check = %v, want ok and reachable", c)
	}

	code, rep, all = doctor("postgres://postgres:s3cret@127.0.0.1:1/test")
	if code != exitFailed || rep["ready"] != false {
		t.Fatalf("unreachable state: exit %d, ready %v\n%s", code, rep["ready"], all)
	}
	if c := stateCheck(rep); c["level"] != "fail" {
		t.Errorf("state check = %v, want fail", c)
	}
	if strings.Contains(all, "s3cret") {
		t.Errorf("the state URL's password was printed:\n%s", all)
	}
}
