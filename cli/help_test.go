package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEveryCommandHelp holds every command's help to what a newcomer
// reads: examples, the exit codes it returns (no others), 80 columns.
func TestEveryCommandHelp(t *testing.T) {
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			writeCommandUsage(&b, c)
			help := b.String()
			if c.examples == "" || !strings.Contains(help, "\nExamples:\n  ") {
				t.Error("no Examples section")
			}
			// A command that runs until it is stopped lists that first.
			if first := exitOK; len(c.exits) == 0 || (c.exits[0].code != first && !(c.untilStopped && c.exits[0].code == 143)) {
				t.Errorf("exit codes %v: want 0 first", c.exits)
			}
			for _, line := range strings.Split(help, "\n") {
				if n := utf8.RuneCountInString(line); n > 80 {
					t.Errorf("line of %d columns: %s", n, line)
				}
			}
			if strings.Contains(help, "refused by a safety check (limits") {
				t.Error("help shows the general exit code list")
			}
		})
	}
}

// TestNoColor: a terminal gets colours unless NO_COLOR is set or
// --no-color is given.
func TestNoColor(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name   string
		flag   bool
		env    string
		colour bool
	}{
		{"terminal", false, "", true},
		{"NO_COLOR", false, "1", false},
		{"--no-color", true, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sys, s := testIO(map[string]string{"NO_COLOR": tt.env})
			sys.IsTTY = true
			stdout, stderr := s.Stdout, s.Stderr
			args := []string{"plan", "--sim", "--state-dir", filepath.Join(dir, tt.name), "examples/single-race.yaml"}
			if tt.flag {
				args = append(args[:1], append([]string{"--no-color"}, args[1:]...)...)
			}
			if code := execute(context.Background(), args, sys); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Contains(stdout.String(), "\x1b["); got != tt.colour {
				t.Errorf("colour %v, want %v:\n%s", got, tt.colour, stdout)
			}
		})
	}
	os.RemoveAll(dir)
}
