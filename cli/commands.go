package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/betplan/betplan/plan"
)

// commands are betplan's commands, in help's order.
func commands() []*command {
	return []*command{
		validateCommand(),
		planCommand(),
		diffCommand(),
		fmtCommand(),
		runCommand(),
		serveCommand(),
		statusCommand(),
		historyCommand(),
		explainCommand(),
		cancelCommand(),
		stopCommand(),
		doctorCommand(),
		notifyCommand(),
		unlockCommand(),
		schemaCommand(),
		simCommand(),
		versionCommand(),
	}
}

func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// envVar is an environment variable the commands read, with the flag that
// wins over it: brief is `betplan help`'s words (broken where help breaks
// them), detail the docs' table (internal/docgen writes both from here).
// A flag alone (no name) is in the docs' table only.
type envVar struct {
	name, flag    string
	brief, detail string
}

// environment is every variable betplan reads, in help's order.
var environment = []envVar{
	{"BETPLAN_BASE_URL", "--base-url", "service base URL (https:// required except on loopback)",
		"the service's base URL; `https://` required except on loopback (`--insecure` to override). Its host's case, the default port (`:443`, `:80` for `http://`) and a trailing slash do not matter: every spelling of one service finds the same journals, locks, stop marks and saved plans, and outputs write it one way"},
	{"BETPLAN_TOKEN", "", "API token", "API token (`Authorization: Token …`)"},
	{"BETPLAN_EMAIL", "", "e-mail for login (with BETPLAN_PASSWORD)",
		"the e-mail to log in with, with `BETPLAN_PASSWORD` (the token is cached in the user's config dir, mode 0600); with a token too, a 401 mid-run leads to one new login"},
	{"BETPLAN_PASSWORD", "", "password for login", "the password to log in with, with `BETPLAN_EMAIL`"},
	{"BETPLAN_TIPSTER_APIKEY", "", "the tip package's API key, for plans with tips (never printed)",
		"the tip package's API key, for plans with tips (never printed, journalled or reported)"},
	{"BETPLAN_STATE", "--state", "shared state: postgres://user@host/db keeps journals and locks\nin PostgreSQL for every machine (run, plan, status, cancel, unlock),\nand serve's leadership of the account",
		"a `postgres://` URL: keep journals and locks in that database, shared by every machine (see Running on several machines in docs/running.md), and `betplan serve`'s leadership of the account (for serve, a directory on this machine does too)"},
	{"BETPLAN_SERVE_TOKEN", "--listen-token-file", "the bearer token serve's /healthz, /readyz, /metrics and /status\nask for (required off loopback; or --listen-token-file)",
		"the bearer token `betplan serve`'s `/healthz`, `/readyz`, `/metrics` and `/status` ask for (required off loopback); `--listen-token-file` names a file holding it instead, never the token itself"},
	{"", "--state-schema", "", "the shared state's schema (default the URL's `search_path`, or `betplan`)"},
	{"BETPLAN_CONFIG", "--config", "the account file (default: betplan.yaml found from the plan's\ndirectory up to the repository root; or --config)",
		"the account file (default `betplan.yaml` in the plan's directory or above it, up to the repository root)"},
	{"NO_COLOR", "--no-color", "disable colour in terminal output (or --no-color)", "no colour in terminal output"},
}

// helpExpressions is the help topic that prints the expression
// reference: `betplan help expressions`.
const helpExpressions = "expressions"

func writeHelp(w io.Writer) {
	fmt.Fprintf(w, "betplan runs declarative bet plans against the Betting Automation Service.\n\n")
	fmt.Fprintf(w, "Usage:\n  betplan <command> [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-9s %s\n", "help", "show help for betplan or one command")
	fmt.Fprintf(w, "\nRun 'betplan help <command>' or 'betplan <command> --help' for its flags,\n")
	fmt.Fprintf(w, "'betplan help %s' for what a plan's when, for_each_race and stake\nexpressions can use.\n\n", helpExpressions)
	fmt.Fprintf(w, "Exit codes:\n")
	for _, e := range exitCodes {
		fmt.Fprintf(w, "  %d  %s\n", e.code, strings.ReplaceAll(e.brief, "\n", "\n     "))
	}
	fmt.Fprintf(w, "Each command's help lists the codes it can return.\n\n")
	fmt.Fprintf(w, "Environment (a flag wins over the environment, which wins over the default):\n")
	for _, v := range environment {
		if v.name == "" {
			continue // a flag alone: its command's help has it
		}
		text := strings.ReplaceAll(v.brief, "\n", "\n"+strings.Repeat(" ", 21))
		if len(v.name) > 17 {
			fmt.Fprintf(w, "  %s\n%s%s\n", v.name, strings.Repeat(" ", 21), text)
			continue
		}
		fmt.Fprintf(w, "  %-17s  %s\n", v.name, text)
	}
}

func writeCommandUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  betplan %s [flags]", wrapWords(c.summary, 80, ""), c.name)
	if c.args != "" {
		fmt.Fprintf(w, " %s", c.args)
	}
	fmt.Fprintln(w)
	fs := c.helpFlags()
	if fs.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsagesWrapped(80))
	}
	if c.examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s", c.examples)
	}
	fmt.Fprintf(w, "\nExit codes:\n")
	for _, e := range c.exits {
		fmt.Fprintf(w, "  %-3d %s\n", e.code, wrapWords(e.text, 72, "      "))
	}
}

// wrapWords folds text at width columns, later lines indented, so help
// fits an 80-column terminal.
func wrapWords(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		if i > 0 {
			if n+1+len(word) > width {
				b.WriteString("\n" + indent)
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// suggestCommand returns ` (did you mean "x"?)` for a near miss.
func suggestCommand(name string) string {
	names := []string{"help", helpExpressions}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if best := plan.Suggest(strings.ToLower(name), names); best != "" {
		if best == helpExpressions {
			best = "help " + helpExpressions
		}
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// flagHint points a flag other tools have to what betplan does instead:
// a dry run is `betplan plan`.
func flagHint(cmd string, err error) string {
	if strings.Contains(err.Error(), "--dry-run") && cmd != "plan" {
		return "; for a dry run, 'betplan plan PLAN' shows what run would do, without a request that changes anything"
	}
	return ""
}
