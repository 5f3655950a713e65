package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// betplan sim prints everything a rehearsal needs to reach it, the
// account's e-mail and password included (a token expires; a login does
// not), and stops at once when interrupted.
func TestSimPrintsItsCredentials(t *testing.T) {
	var stdout, stderr bytes.Buffer
	sys := &sysIO{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the service stops as soon as it has said how to reach it
	o := &simOptions{Addr: "127.0.0.1:0", Speed: 1}
	o.World.Seed = 1
	require.NoError(t, serveSim(ctx, sys, o, nil))
	out := stdout.String()
	assert.Regexp(t, `(?m)^export BETPLAN_BASE_URL=http://127\.0\.0\.1:\d+$`, out)
	assert.Regexp(t, `(?m)^export BETPLAN_TOKEN=\S+$`, out)
	assert.Regexp(t, `(?m)^export BETPLAN_EMAIL=punter@example\.com$`, out)
	assert.Regexp(t, `(?m)^export BETPLAN_PASSWORD=sim-password$`, out)
}
