package sim_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/betplan/betplan/apiclient/sim"
)

func TestCreateTakeUpResult(t *testing.T) {
	e := setup(t, sim.Options{Seed: 7})
	r := e.firstRace("Flemington")
	res := e.do("POST", "/notification/create/", createBody(r, "1", "smoke"))
	if res.Status != 200 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var n notification
	res.decode(t, &n)
	e.clock.Advance(5 * time.Second)
	var b betsOfNotification
	e.do("GET", fmt.Sprintf("/bet/notification/%d/", n.ID), nil).decode(t, &b)
	if len(b.Bets) != 2 {
		t.Fatalf("records: %+v", b)
	}
	e.clock.Set(r.Start.Add(3 * time.Minute))
	res = e.do("GET", "/notification/?label=smoke", nil)
	if res.Status != http.StatusOK {
		t.Fatal(res.Status)
	}
	t.Logf("%s", res.Body)
}
