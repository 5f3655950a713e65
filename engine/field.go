package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/betplan/betplan/apiclient"
)

// notInField returns why a bet's selection names a runner its race's
// field does not have (a vacant box, a scratched runner), or "".
func notInField(in *instance) string {
	if in.race == nil {
		return "" // an event bet: its selection was found when it resolved
	}
	return fieldGap(in.race, in.info, in.bet.Selection)
}

// fieldGap names the first runner of selection that rc's field lacks:
// "box 8 is vacant in Wentworth Park R1: 6 runners". A race listed
// without runners is not judged.
func fieldGap(rc *apiclient.Race, info RaceInfo, selection string) string {
	runners := rc.RunnerNumbers()
	if len(runners) == 0 {
		return ""
	}
	for _, part := range strings.Split(selection, ",") {
		num, _, _ := strings.Cut(strings.TrimSpace(part), ":")
		if slices.Contains(runners, num) {
			continue
		}
		if strings.EqualFold(info.Code, "Greyhounds") {
			return fmt.Sprintf("box %s is vacant in %s R%d: %d %s", num, info.Venue, info.EventNumber, len(runners), plural(len(runners), "runner", "runners"))
		}
		return fmt.Sprintf("runner %s is not in the field of %s R%d (scratched or never entered): runners %s", num, info.Venue, info.EventNumber, strings.Join(runners, ","))
	}
	return ""
}

// checkRunners returns why the selection names a runner the race does not
// have, before any create.
func checkRunners(in *instance) string {
	if in.race == nil {
		return "" // an event bet: its selection was found when it resolved
	}
	runners := in.race.RunnerNumbers()
	if len(runners) == 0 {
		return ""
	}
	for _, part := range strings.Split(in.bet.Selection, ",") {
		num, _, _ := strings.Cut(strings.TrimSpace(part), ":")
		if !slices.Contains(runners, num) {
			return fmt.Sprintf("runner %s is not in %s %s R%d (runners %s): not created", num, in.info.Venue, in.info.Code, in.info.EventNumber, strings.Join(runners, ","))
		}
	}
	return ""
}
