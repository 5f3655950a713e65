package docgen_test

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/betplan/betplan/internal/docgen"
)

// A region is rewritten from its value, text around it kept; a region
// nobody knows is an error, never left as it was.
func TestApply(t *testing.T) {
	src := "# Title\n\n<!-- generated: limits (go generate ./...) -->\nstale\n<!-- end generated -->\n\nhand text\n"
	out, found, err := docgen.Apply([]byte(src), map[string]string{"limits": "fresh\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\n<!-- generated: limits (go generate ./...) -->\nfresh\n<!-- end generated -->\n\nhand text\n"
	if string(out) != want || len(found) != 1 || found[0] != "limits" {
		t.Errorf("got %q, %v; want %q, [limits]", out, found, want)
	}
	if _, _, err := docgen.Apply([]byte(src), map[string]string{"reasons": ""}); err == nil || !strings.Contains(err.Error(), `unknown generated region "limits"`) {
		t.Errorf("an unknown region: got %v", err)
	}
}

// A command's page holds what its help does: usage, every flag with its
// default and words, examples, exit codes.
func TestCommandPage(t *testing.T) {
	fs := pflag.NewFlagSet("betplan run", pflag.ContinueOnError)
	fs.Bool("yes", false, "do not ask")
	fs.Duration("lock-timeout", 0, "how long to wait")
	fs.String("format", "text", "report format: text|json")
	ref := &docgen.Reference{
		Commands: []docgen.Command{{
			Name: "run", Args: "PLAN...", Summary: "create the bets", Flags: fs, Guide: "running.md",
			Examples: "  # rehearse\n  betplan run --sim x.yaml\n",
			Exits:    []docgen.Exit{{Code: 0, Brief: "done"}, {Code: 3, Brief: "refused"}},
		}},
		Exits: []docgen.Exit{{Code: 0, Brief: "ok"}},
	}
	files, err := docgen.Generate("testdata/root", ref)
	if err != nil {
		t.Fatal(err)
	}
	page := string(files["docs/commands/run.md"])
	for _, want := range []string{
		"# betplan run\n\nCreate the bets.\n",
		"betplan run [flags] PLAN...\n",
		"[docs/running.md](../running.md)",
		"| `--yes` |  | do not ask |\n",
		"| `--lock-timeout duration` |  | how long to wait |\n",
		"| `--format string` | `text` | report format: text\\|json |\n",
		"```sh\n# rehearse\nbetplan run --sim x.yaml\n```\n",
		"| 3 | refused |\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("run.md lacks %q:\n%s", want, page)
		}
	}
	if index := string(files["docs/commands/README.md"]); !strings.Contains(index, "| [`betplan run`](run.md) | create the bets |") {
		t.Errorf("the index lacks run:\n%s", index)
	}
}
