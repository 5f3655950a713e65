package docgen

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Reference is what the command line knows of itself, as plain values: its
// commands, the exit codes they share and the environment they read. The
// command package builds it from the same definitions `betplan help`
// prints.
type Reference struct {
	Commands    []Command
	Exits       []Exit
	Environment []Variable
}

// Command is one subcommand as `betplan help NAME` shows it.
type Command struct {
	Name    string
	Args    string // the arguments' synopsis: "PLAN|DIR|GLOB..."
	Summary string
	// Flags are the command's flags, bound as a run binds them.
	Flags *pflag.FlagSet
	// Examples are command lines with a comment each, as help prints them:
	// lines of "  # what it does" and "  betplan …".
	Examples string
	// Exits are the codes the command can return and what each means there.
	Exits []Exit
	// Guide is the docs page, from docs/, that explains the task the
	// command serves: "running.md#running-from-cron".
	Guide string
}

// Exit is an exit code and what it means: Brief is the line help shows
// (continuation lines already broken, as help prints them), Detail the
// docs' cell ("" for Brief's words).
type Exit struct {
	Code   int
	Brief  string
	Detail string
}

// Variable is one environment variable the commands read, or a flag
// that stands for one ("" Name).
type Variable struct {
	Name   string // BETPLAN_BASE_URL
	Flag   string // --base-url, or "" when no flag sets it
	Brief  string // help's words, continuation lines already broken
	Detail string // the docs' cell ("" for Brief's words)
}

// check refuses a reference the docs could not be made from: a command
// without a name, a variable naming a flag no command has.
func (r *Reference) check() error {
	if len(r.Commands) == 0 || len(r.Exits) == 0 {
		return fmt.Errorf("the reference has no commands or no exit codes")
	}
	for _, c := range r.Commands {
		if c.Name == "" || c.Flags == nil || c.Guide == "" {
			return fmt.Errorf("command %q: a command needs a name, its flags and the docs page of its task (Guide)", c.Name)
		}
	}
	for _, v := range r.Environment {
		if v.Flag == "" {
			continue
		}
		found := false
		for _, c := range r.Commands {
			found = found || c.Flags.Lookup(strings.TrimPrefix(v.Flag, "--")) != nil
		}
		if !found {
			return fmt.Errorf("environment: %s names %s, a flag no command has", v.Name, v.Flag)
		}
	}
	return nil
}

// words is text with its line breaks and runs of spaces made one space:
// help's hand-broken lines as one cell.
func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell is Markdown s made one table cell.
func cell(s string) string { return strings.ReplaceAll(words(s), "|", `\|`) }

// plain is text (help's words, which are not Markdown) as one table cell:
// a `<state-dir>` stays text, not an HTML tag a browser drops.
func plain(s string) string { return strings.ReplaceAll(cell(s), "<", `\<`) }

func (e Exit) detail() string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Brief
}

func (v Variable) detail() string {
	if v.Detail != "" {
		return v.Detail
	}
	return v.Brief
}

// exitCodes is the docs' table of every exit code.
func exitCodes(exits []Exit) string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, e := range exits {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, cell(e.detail()))
	}
	return b.String()
}

// exitCodesBrief is the README's table: help's words.
func exitCodesBrief(exits []Exit) string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, e := range exits {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, plain(e.Brief))
	}
	return b.String()
}

// environment is the docs' table of the variables and flags.
func environment(vars []Variable) string {
	var b strings.Builder
	b.WriteString("| variable | flag | meaning |\n|---|---|---|\n")
	for _, v := range vars {
		name, flag := "", ""
		if v.Name != "" {
			name = "`" + v.Name + "`"
		}
		if v.Flag != "" {
			flag = "`" + v.Flag + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, flag, cell(v.detail()))
	}
	return b.String()
}

// generatedNote heads every page of the command reference.
const generatedNote = "<!-- Generated from the commands' definitions by `go generate ./...`: edit the command's cmd_*.go, not this file. -->\n\n"

// pages are the command reference's files by name: one per command and
// README.md, the index.
func (r *Reference) pages() map[string]string {
	pages := map[string]string{"README.md": r.index()}
	for _, c := range r.Commands {
		pages[c.Name+".md"] = c.page()
	}
	return pages
}

func (r *Reference) index() string {
	var b strings.Builder
	b.WriteString(generatedNote)
	b.WriteString("# Command reference\n\n")
	b.WriteString("Every command of betplan, with its flags, examples and exit codes, as\n`betplan help COMMAND` prints them. Flags may come before or after the\narguments; durations use Go syntax (`2s`, `1m30s`). What each task needs\nis on the task's page: see [the docs](../../README.md#the-docs).\n\n")
	b.WriteString("| command | what it does |\n|---|---|\n")
	for _, c := range r.Commands {
		fmt.Fprintf(&b, "| [`betplan %s`](%s.md) | %s |\n", c.Name, c.Name, plain(c.Summary))
	}
	b.WriteString("| `betplan help [COMMAND]`, `betplan help expressions` | help on betplan or one command; the [expression reference](../plans.md#expressions) |\n")
	b.WriteString("\n## Exit codes\n\n")
	b.WriteString("Every command's page lists the codes it can return.\n\n")
	b.WriteString(exitCodes(r.Exits))
	b.WriteString("\nWhich reasons of a bet not created or not placed are failures (exit 1) is in\nthe [reason codes](../reports.md#reason-codes).\n")
	b.WriteString("\n## Environment\n\n")
	b.WriteString("A flag wins over the environment, which wins over the default.\n\n")
	b.WriteString(environment(r.Environment))
	b.WriteString("\nTokens and passwords never appear in output, logs or reports.\n")
	return b.String()
}

// page is one command's page.
func (c *Command) page() string {
	var b strings.Builder
	b.WriteString(generatedNote)
	fmt.Fprintf(&b, "# betplan %s\n\n", c.Name)
	s := words(c.Summary)
	fmt.Fprintf(&b, "%s.\n\n", strings.ReplaceAll(strings.ToUpper(s[:1])+s[1:], "<", `\<`))
	b.WriteString("```text\nbetplan " + c.Name + " [flags]")
	if c.Args != "" {
		b.WriteString(" " + c.Args)
	}
	b.WriteString("\n```\n")
	if c.Guide != "" {
		fmt.Fprintf(&b, "\nHow to use it: [%s](../%s).\n", guideTitle(c.Guide), c.Guide)
	}
	if c.Flags.HasFlags() {
		b.WriteString("\n## Flags\n\n| flag | default | meaning |\n|---|---|---|\n")
		c.Flags.VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			name, usage := pflag.UnquoteUsage(f)
			flag := "--" + f.Name
			if f.Shorthand != "" {
				flag = "-" + f.Shorthand + ", " + flag
			}
			if name != "" {
				flag += " " + name
			}
			def := ""
			if !zeroDefault(f) {
				def = "`" + f.DefValue + "`"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", flag, def, plain(usage))
		})
	}
	if ex := strings.TrimRight(c.Examples, "\n"); ex != "" {
		b.WriteString("\n## Examples\n\n```sh\n")
		for _, line := range strings.Split(ex, "\n") {
			b.WriteString(strings.TrimPrefix(line, "  ") + "\n")
		}
		b.WriteString("```\n")
	}
	b.WriteString("\n## Exit codes\n\n| code | meaning |\n|---|---|\n")
	for _, e := range c.Exits {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, plain(e.Brief))
	}
	return b.String()
}

// guideTitle names a docs page for a link: "running.md#running-from-cron"
// is "running.md".
func guideTitle(guide string) string {
	page, _, _ := strings.Cut(guide, "#")
	return "docs/" + page
}

// zeroDefault says a flag's default is its type's zero value, which help
// does not print either.
func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "false", "0", "0s", "[]":
		return true
	}
	return false
}
