package plan

import _ "embed"

// ExpressionsHelp is the reference of what a plan's expressions can use:
// every name of Env and every helper function, with examples. It is the
// one source: `betplan help expressions` prints it and the README's
// expression reference repeats it (a test holds them equal), and a test
// here holds it to Env and the helpers.
//
//go:embed expressions.txt
var ExpressionsHelp string
