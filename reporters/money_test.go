package reporters_test

import (
	"strings"
	"testing"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// TestEveryFormatSaysWhatACancelledPlacedBetAndARefusalAre: a bet
// cancelled after its session placed $10 says both in its status, before
// and after its result; a session that refused is named with the
// service's reason beside the one that placed it, in every format.
func TestEveryFormatSaysWhatACancelledPlacedBetAndARefusalAre(t *testing.T) {
	r := runResult()
	for i := range r.Bets {
		b := &r.Bets[i]
		switch b.ID {
		case "second-thoughts": // cancelled, after Main placed $10, then lost
			b.Canceled, b.Status, b.AmountAccepted, b.Profit = true, engine.StatusSettled, 10, -10
			b.PlacedAt, b.PlacedBy = b.CreatedAt, []string{"Main"}
		case "late-money":
			b.RefusedBy = []string{"Ladbrokes 2: The minimum stake is $1."}
		}
	}
	for _, f := range []reporters.Format{reporters.FormatText, reporters.FormatMarkdown, reporters.FormatHTML} {
		// Markdown escapes $ (\$), which renders as $.
		out := strings.ReplaceAll(string(render(t, f, r, reporters.TextOptions{Width: 400})), `\$`, "$")
		for _, want := range []string{"cancelled · $10.00 placed · lost", "by Main, Sportsbet 2; refused by Ladbrokes 2: The minimum stake is $1."} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q", f, want)
			}
		}
	}
}
