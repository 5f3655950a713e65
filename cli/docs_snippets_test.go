package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// The docs are tested as a user reads them: every YAML snippet is a plan
// (or an account file, or a part of an example plan) that `betplan
// validate` passes, or a deliberate mistake marked with the message
// validate must give; every `betplan …` command line parses against the
// command's real flags. A snippet says what it is in an HTML comment on
// the line before its fence:
//
//	<!-- invalid: MESSAGE -->          validate must refuse it, saying MESSAGE
//	<!-- part of examples/X.yaml -->   its bets (or keys) go into that plan,
//	                                   which must then validate
//	<!-- not a plan: WHAT -->          YAML of something else (a workflow):
//	                                   it must parse, and its command lines
//	                                   are checked like the others

// docFiles are the Markdown files a user reads: the README,
// CONTRIBUTING.md and every page under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// docFence is one fenced code block of a Markdown file.
type docFence struct {
	file   string
	line   int    // of the opening fence
	info   string // the fence's language: yaml, sh, console, text…
	marker string // the HTML comment just before it, without <!-- -->
	body   string // its lines, the fence's indentation taken off
}

func (f docFence) String() string { return fmt.Sprintf("%s:%d", f.file, f.line) }

var markerComment = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)

// readFences is every fenced block of src, and the lines outside them
// by their number.
func readFences(file, src string) (fences []docFence, prose map[int]string) {
	prose = map[int]string{}
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimLeft(lines[i], " ")
		indent := len(lines[i]) - len(trimmed)
		if !strings.HasPrefix(trimmed, "```") {
			prose[i+1] = lines[i]
			continue
		}
		f := docFence{file: file, line: i + 1, info: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
		for j := i - 1; j >= 0; j-- {
			if p := strings.TrimSpace(lines[j]); p != "" {
				if m := markerComment.FindStringSubmatch(p); m != nil && !strings.HasPrefix(m[1], "generated:") {
					f.marker = m[1]
				}
				break
			}
		}
		var body []string
		for i++; i < len(lines); i++ {
			if strings.HasPrefix(strings.TrimLeft(lines[i], " "), "```") {
				break
			}
			l := lines[i]
			if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
				l = l[indent:]
			}
			body = append(body, l)
		}
		f.body = strings.Join(body, "\n") + "\n"
		fences = append(fences, f)
	}
	return fences, prose
}

func allFences(t *testing.T) (fences []docFence, prose map[string]map[int]string) {
	t.Helper()
	prose = map[string]map[int]string{}
	for _, file := range docFiles(t) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		f, p := readFences(file, string(src))
		fences = append(fences, f...)
		prose[file] = p
	}
	return fences, prose
}

// TestDocsYAMLValidates runs every YAML snippet of the docs through
// `betplan validate`, as a reader who copies it would.
func TestDocsYAMLValidates(t *testing.T) {
	t.Parallel()
	fences, _ := allFences(t)
	checked := 0
	for _, f := range fences {
		if f.info != "yaml" && f.info != "yml" {
			continue
		}
		checked++
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			checkYAMLSnippet(t, f)
		})
	}
	if checked < 10 {
		t.Errorf("only %d YAML snippets found: is the fence pattern still right?", checked)
	}
}

func checkYAMLSnippet(t *testing.T, f docFence) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(f.body), &doc); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, f.body)
	}
	kind, arg, _ := strings.Cut(f.marker, ":")
	src := f.body
	switch {
	case strings.HasPrefix(f.marker, "not a plan:"):
		return
	case strings.HasPrefix(f.marker, "part of "):
		spliced, err := spliceIntoPlan(strings.TrimPrefix(f.marker, "part of "), &doc)
		if err != nil {
			t.Fatal(err)
		}
		src = spliced
	case kind == "invalid":
	case f.marker != "":
		t.Fatalf("unknown marker <!-- %s -->: want invalid: MESSAGE, part of FILE or not a plan: WHAT", f.marker)
	}
	dir := t.TempDir()
	name := "plan.yaml"
	if isAccountFile(&doc) {
		name = "betplan.yaml" // where a plan finds it
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sys, s := testIO(nil)
	code := execute(context.Background(), []string{"validate", path}, sys)
	out := strings.ReplaceAll(s.Stdout.String()+s.Stderr.String(), dir+string(filepath.Separator), "")
	if kind == "invalid" {
		want := strings.TrimSpace(arg)
		if code != exitUsage || !strings.Contains(out, want) {
			t.Errorf("marked invalid: want exit 2 saying %q, got exit %d:\n%s", want, code, out)
		}
		return
	}
	if code != exitOK || strings.Contains(out, ": warning: ") {
		t.Errorf("betplan validate: exit %d:\n%s\nthe snippet as validated:\n%s", code, out, src)
	}
}

// isAccountFile says a snippet holds only what an account file may.
func isAccountFile(doc *yaml.Node) bool {
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return false
	}
	m := doc.Content[0]
	for i := 0; i < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "version", "limits", "notify":
		default:
			return false
		}
	}
	return true
}

// spliceIntoPlan is the plan file with a snippet's parts put in: a list
// is bets; a mapping's keys replace the plan's, but a list of bets or
// tips joins the plan's, an entry with an id the plan has in its place.
func spliceIntoPlan(file string, snippet *yaml.Node) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("part of %s: %w", file, err)
	}
	var base yaml.Node
	if err := yaml.Unmarshal(src, &base); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	plan := base.Content[0]
	part := snippet.Content[0]
	if part.Kind == yaml.SequenceNode {
		part = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "bets"}, part}}
	}
	if part.Kind != yaml.MappingNode {
		return "", errors.New("a part of a plan is a list of bets or a mapping of its keys")
	}
	for i := 0; i < len(part.Content); i += 2 {
		key, value := part.Content[i], part.Content[i+1]
		old := mappingValue(plan, key.Value)
		switch {
		case old == nil:
			plan.Content = append(plan.Content, key, value)
		case (key.Value == "bets" || key.Value == "tips") && value.Kind == yaml.SequenceNode:
			for _, entry := range value.Content {
				if j := entryWithID(old, mappingValue(entry, "id")); j >= 0 {
					old.Content[j] = entry
				} else {
					old.Content = append(old.Content, entry)
				}
			}
		default:
			*old = *value
		}
	}
	out, err := yaml.Marshal(&base)
	return string(out), err
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; m != nil && m.Kind == yaml.MappingNode && i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func entryWithID(list, id *yaml.Node) int {
	if id == nil {
		return -1
	}
	for j, e := range list.Content {
		if v := mappingValue(e, "id"); v != nil && v.Value == id.Value {
			return j
		}
	}
	return -1
}

// TestDocsCommandLinesParse parses every `betplan …` command line of the
// docs (in sh and console blocks, in YAML snippets, in inline code) with
// its command's own flags, as the command would, without running it: a
// renamed flag, a bad duration or a command that is gone fails here.
func TestDocsCommandLinesParse(t *testing.T) {
	t.Parallel()
	fences, prose := allFences(t)
	parsed := 0
	check := func(where, line string) {
		for _, args := range betplanCalls(line) {
			parsed++
			if err := parseCommandLine(args); err != nil {
				t.Errorf("%s: betplan %s: %v", where, strings.Join(args, " "), err)
			}
		}
	}
	for _, f := range fences {
		switch f.info {
		case "sh", "shell", "bash", "console", "yaml", "yml":
		default:
			continue // output, help text, JSON
		}
		lines := strings.Split(strings.ReplaceAll(f.body, "\\\n", " "), "\n")
		for i, line := range lines {
			where := fmt.Sprintf("%s:%d", f.file, f.line+1+i)
			switch f.info {
			case "console":
				cmd, ok := strings.CutPrefix(line, "$ ")
				if !ok {
					continue // what the command printed
				}
				line = cmd
			case "yaml", "yml":
				if strings.HasPrefix(strings.TrimSpace(line), "#") {
					continue
				}
				if _, cmd, ok := strings.Cut(line, "run: "); ok {
					line = cmd
				}
			}
			check(where, line)
		}
	}
	for file, lines := range prose {
		for n, line := range lines {
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				check(fmt.Sprintf("%s:%d", file, n), m[1])
			}
		}
	}
	if parsed < 100 {
		t.Errorf("only %d betplan command lines found: is the pattern still right?", parsed)
	}
}

var inlineCode = regexp.MustCompile("`(betplan [^`]+|go run \\. [^`]+)`")

var commandWord = regexp.MustCompile(`^[a-z]+$`)

// betplanCalls are the betplan calls of one shell line: each simple
// command's words from a `betplan` (or `go run .`) followed by a command
// name, as the shell would split them; a `betplan` not followed by one is
// a name (an image, a directory), not a call.
func betplanCalls(line string) [][]string {
	var calls [][]string
	for _, words := range shellCommands(line) {
		for i, w := range words {
			rest := words[i+1:]
			if w == "go" && len(rest) >= 2 && rest[0] == "run" && rest[1] == "." {
				rest = rest[2:]
			} else if w != "betplan" {
				continue
			}
			if len(rest) > 0 && commandWord.MatchString(rest[0]) {
				calls = append(calls, rest)
			}
			break
		}
	}
	return calls
}

// shellCommands splits a line as a POSIX shell would into simple
// commands (at |, ||, &&, ; and &) of words (quotes removed, redirections
// and a comment dropped). Expansions stay as written.
func shellCommands(line string) [][]string {
	var (
		cmds     [][]string
		words    []string
		word     strings.Builder
		inWord   bool
		redirect bool // the next word is a redirection's target
	)
	endWord := func() {
		if inWord {
			if redirect {
				redirect = false
			} else {
				words = append(words, word.String())
			}
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) {
					i++
				}
				word.WriteByte(line[i])
			}
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			endCmd()
			return cmds
		case c == '|' || c == '&' || c == ';':
			if c == '&' && i > 0 && line[i-1] == '>' {
				continue
			}
			endCmd()
			if i+1 < len(line) && line[i+1] == c {
				i++
			}
		case c == '>' || c == '<':
			// A redirection: "2>" drops the fd, ">&1" has no target word.
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			endWord()
			for i+1 < len(line) && line[i+1] == c {
				i++
			}
			if i+1 < len(line) && line[i+1] == '&' {
				for i++; i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9'; i++ {
				}
				continue
			}
			redirect = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds
}

// parseCommandLine parses args, a betplan command line without
// "betplan", with the command's own flags, as execute does.
func parseCommandLine(args []string) error {
	name := args[0]
	if name == "help" {
		if len(args) > 1 && args[1] != helpExpressions && findCommand(args[1]) == nil && args[1] != strings.ToUpper(args[1]) {
			return fmt.Errorf("no help on %q", args[1])
		}
		return nil
	}
	c := findCommand(name)
	if c == nil {
		return fmt.Errorf("no command %q", name)
	}
	fs := c.helpFlags()
	if err := fs.Parse(args[1:]); err != nil && !errors.Is(err, pflag.ErrHelp) {
		return err
	}
	return nil
}
