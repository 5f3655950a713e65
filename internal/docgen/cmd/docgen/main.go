// Command docgen rewrites the documentation's generated regions (package
// docgen) from the module's root: `go generate ./...` runs it.
package main

import (
	"fmt"
	"os"

	"github.com/betplan/betplan/internal/docgen"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	if err := docgen.Write(root); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}
