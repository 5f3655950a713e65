package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ANSI colours of the text diff, as terraform plan shows them.
const (
	ansiGreen  = "\x1b[32m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

var diffSign = map[string]string{BetAdded: "+", BetRemoved: "-", BetChanged: "~"}

// WriteDiffText writes the diff for a terminal, coloured when color is set.
func WriteDiffText(w io.Writer, d *PlanDiff, color bool) error {
	paint := func(c, s string) string {
		if !color {
			return s
		}
		return c + s + ansiReset
	}
	signColor := map[string]string{"+": ansiGreen, "-": ansiRed, "~": ansiYellow}
	var b strings.Builder
	fmt.Fprintf(&b, "betplan diff %s %s\n", d.Old, d.New)
	if !d.Changed() {
		b.WriteString("\n" + d.noChanges() + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, warn := range d.Warnings {
		fmt.Fprintf(&b, "\n%s %s\n", paint(ansiYellow+ansiBold, "Warning:"), warn)
	}
	if len(d.Plan) > 0 {
		fmt.Fprintf(&b, "\n%s\n", paint(ansiBold, d.sectionTitle()))
		for _, c := range d.Plan {
			s := changeSign(c)
			fmt.Fprintf(&b, "  %s %s: %s\n", paint(signColor[s], s), c.Field, changeText(c))
		}
	}
	for _, sec := range diffSections(d) {
		fmt.Fprintf(&b, "\n%s\n", paint(ansiBold, sec.title))
		for _, bc := range sec.changes {
			s := diffSign[bc.Kind]
			fmt.Fprintf(&b, "  %s %s %s (%s)\n", paint(signColor[s], s), sec.noun, bc.ID, bc.Kind)
			if bc.NewLabel != "" {
				fmt.Fprintf(&b, "      %s %s\n", paint(ansiYellow+ansiBold, "! "+sec.newKey+":"), bc.NewLabel+"; "+sec.consequence)
			}
			for _, c := range bc.Changes {
				switch bc.Kind {
				case BetAdded:
					fmt.Fprintf(&b, "      %s: %s\n", c.Field, c.New)
				case BetRemoved:
					fmt.Fprintf(&b, "      %s: %s\n", c.Field, c.Old)
				default:
					s := changeSign(c)
					fmt.Fprintf(&b, "      %s %s: %s\n", paint(signColor[s], s), c.Field, changeText(c))
				}
			}
		}
	}
	if !d.Account {
		fmt.Fprintf(&b, "\n%s\n", paint(ansiBold, "Worst case"))
		for _, row := range worstRows(d) {
			fmt.Fprintf(&b, "  %-26s %14s %s %s\n", row[0], row[1], "→", row[2])
		}
	}
	fmt.Fprintf(&b, "\n%s\n", summary(d))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDiffMarkdown writes the diff as a pull-request comment.
func WriteDiffMarkdown(w io.Writer, d *PlanDiff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### betplan diff `%s`\n\n", d.New)
	if !d.Changed() {
		b.WriteString(d.noChanges() + "\n")
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(&b, "**%s**\n\n", summary(d))
	for _, warn := range d.Warnings {
		fmt.Fprintf(&b, "> [!WARNING]\n> %s\n\n", mdEscape(warn))
	}
	if len(d.Plan) > 0 {
		fmt.Fprintf(&b, "#### %s\n\n| | Field | Before | After |\n|---|---|---|---|\n", d.sectionTitle())
		for _, c := range d.Plan {
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", changeSign(c), c.Field, mdCode(c.Old), mdCode(c.New))
		}
		b.WriteString("\n")
	}
	for _, sec := range diffSections(d) {
		fmt.Fprintf(&b, "#### %s\n\n", sec.title)
		for _, bc := range sec.changes {
			fmt.Fprintf(&b, "- **%s** `%s` %s\n", diffSign[bc.Kind], bc.ID, bc.Kind)
			if bc.NewLabel != "" {
				fmt.Fprintf(&b, "  - :warning: **%s**: %s; %s\n", sec.newKey, mdEscape(bc.NewLabel), sec.consequence)
			}
			for _, c := range bc.Changes {
				switch bc.Kind {
				case BetAdded:
					fmt.Fprintf(&b, "  - `%s`: %s\n", c.Field, mdCode(c.New))
				case BetRemoved:
					fmt.Fprintf(&b, "  - `%s`: %s\n", c.Field, mdCode(c.Old))
				default:
					fmt.Fprintf(&b, "  - `%s`: %s → %s\n", c.Field, mdCode(c.Old), mdCode(c.New))
				}
			}
		}
		b.WriteString("\n")
	}
	if !d.Account {
		b.WriteString("#### Worst case\n\n| | Before | After |\n|---|---:|---:|\n")
		for _, row := range worstRows(d) {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], mdEscape(row[1]), mdEscape(row[2]))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDiffJSON writes the diff as JSON (schema/diff.schema.json).
func WriteDiffJSON(w io.Writer, d *PlanDiff) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // expressions read "<=", not "\u003c="
	return enc.Encode(d)
}

// diffSection is the bets or the tips of a diff, with the words that
// name them.
type diffSection struct {
	title, noun string
	newKey      string // what a change of identity changes
	consequence string
	changes     []BetChange
}

func diffSections(d *PlanDiff) []diffSection {
	var out []diffSection
	if len(d.Bets) > 0 {
		out = append(out, diffSection{"Bets", "bet", "new label", "exactly-once treats it as a new bet", d.Bets})
	}
	if len(d.Tips) > 0 {
		out = append(out, diffSection{"Tips", "tip", "new journal key", "the journal treats it as a new tip, published again", d.Tips})
	}
	return out
}

func changeSign(c Change) string {
	switch {
	case c.Old == "":
		return "+"
	case c.New == "":
		return "-"
	}
	return "~"
}

func changeText(c Change) string {
	return orUnset(c.Old) + " → " + orUnset(c.New)
}

func orUnset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

func worstRows(d *PlanDiff) [][3]string {
	rows := [][3]string{
		{"bets on named races", fmt.Sprint(d.Before.Bets), fmt.Sprint(d.After.Bets)},
		{"for_each_race bets", fmt.Sprint(d.Before.PerRaceBets), fmt.Sprint(d.After.PerRaceBets)},
		{"static total", "$" + money(d.Before.StaticTotal), "$" + money(d.After.StaticTotal)},
		{"largest static amount", "$" + money(d.Before.MaxStatic), "$" + money(d.After.MaxStatic)},
		{"run-time amounts", fmt.Sprint(d.Before.ExprAmounts), fmt.Sprint(d.After.ExprAmounts)},
	}
	limit := func(w WorstCase, name string) string {
		for _, c := range w.Limits {
			if c.Limit == name {
				if c.Binds {
					return c.Value + " (binds)"
				}
				return c.Value
			}
		}
		return "(unset)"
	}
	for _, name := range limitNames(d) {
		rows = append(rows, [3]string{"limits." + name, limit(d.Before, name), limit(d.After, name)})
	}
	return rows
}

func limitNames(d *PlanDiff) []string {
	var names []string
	seen := map[string]bool{}
	for _, w := range []WorstCase{d.Before, d.After} {
		for _, c := range w.Limits {
			if !seen[c.Limit] {
				seen[c.Limit] = true
				names = append(names, c.Limit)
			}
		}
	}
	return names
}

func (d *PlanDiff) noChanges() string {
	if d.Account {
		return "No changes: the account files set the same limits."
	}
	return "No changes: the plans create the same bets and publish the same tips."
}

// sectionTitle names the section of the file's own fields.
func (d *PlanDiff) sectionTitle() string {
	if d.Account {
		return "Account (" + ConfigFileName + ")"
	}
	return "Plan"
}

func summary(d *PlanDiff) string {
	if d.Account {
		s := fmt.Sprintf("%d account %s", len(d.Plan), plural(len(d.Plan), "change"))
		if n := len(d.Warnings); n > 0 {
			s += fmt.Sprintf("; %d %s loosened", n, plural(n, "limit"))
		}
		return s + "."
	}
	s := fmt.Sprintf("%d to add, %d to change, %d to remove; %d plan-level %s", d.Count(BetAdded), d.Count(BetChanged), d.Count(BetRemoved), len(d.Plan), plural(len(d.Plan), "change"))
	if len(d.Tips) > 0 {
		n := map[string]int{}
		for _, t := range d.Tips {
			n[t.Kind]++
		}
		s += fmt.Sprintf("; tips: %d to add, %d to change, %d to remove", n[BetAdded], n[BetChanged], n[BetRemoved])
	}
	if b := d.After.binding(); len(b) > 0 {
		s += "; binding limits: " + strings.Join(b, ", ")
	}
	return s + "."
}

func plural(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

func mdCode(s string) string {
	if s == "" {
		return "_unset_"
	}
	return "`" + strings.ReplaceAll(strings.ReplaceAll(s, "`", "'"), "|", "\\|") + "`"
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
