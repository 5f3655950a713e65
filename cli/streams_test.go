package cli

import "bytes"

// testStreams are the buffers behind the sysIO testIO returns: what a
// command read and what a user would have seen.
type testStreams struct {
	Stdin, Stdout, Stderr *bytes.Buffer
}

// testIO is the one way tests build a command's streams (as cli/cli's
// iostreams.Test): empty stdin, stdout and stderr into buffers, and an
// environment holding env only. Tests set IsTTY, Width and the like on
// the sysIO when they need a terminal.
func testIO(env map[string]string) (*sysIO, testStreams) {
	s := testStreams{Stdin: &bytes.Buffer{}, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	return &sysIO{Stdin: s.Stdin, Stdout: s.Stdout, Stderr: s.Stderr, Getenv: func(k string) string { return env[k] }}, s
}
