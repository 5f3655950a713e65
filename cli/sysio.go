package cli

import (
	"io"
	"os"

	"golang.org/x/term"

	"github.com/betplan/betplan/reporters"
)

// sysIO is what a command may touch of the outside world, so tests see
// exactly what a user would.
type sysIO struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// IsTTY reports whether stdin and stdout are both terminals.
	IsTTY bool
	// Interactive reports whether stdin is a terminal, so a prompt can be
	// answered even when stdout is piped (betplan run plan.yaml | tee log).
	Interactive bool
	// NoColor is --no-color.
	NoColor bool
	// Width is the terminal's width in columns when stdout is one; 0 when
	// it is piped, so nothing is cut.
	Width int
}

// textOptions shape a text report for this output: tables fit a
// terminal, and piped output is never cut.
func (sys *sysIO) textOptions() reporters.TextOptions {
	return reporters.TextOptions{Color: sys.color(), Width: sys.Width}
}

// terminalWidth is stdout's width when it is a terminal (80 when the size
// cannot be read), else 0.
func terminalWidth(f *os.File) int {
	if !isTerminal(f) {
		return 0
	}
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		return w
	}
	return 80
}

// color reports whether output may carry ANSI colours: a terminal, and
// neither NO_COLOR nor --no-color.
func (sys *sysIO) color() bool { return sys.IsTTY && sys.Getenv("NO_COLOR") == "" && !sys.NoColor }

func newSystemIO() *sysIO {
	return &sysIO{
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Getenv:      os.Getenv,
		IsTTY:       isTerminal(os.Stdin) && isTerminal(os.Stdout),
		Interactive: isTerminal(os.Stdin),
		Width:       terminalWidth(os.Stdout),
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
