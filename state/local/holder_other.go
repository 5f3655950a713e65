//go:build !linux

package local

import (
	"io/fs"

	"github.com/betplan/betplan/state"
)

// lockedBy cannot read a file lock without taking it here: there is no
// system table of them to read.
func lockedBy(fs.FileInfo) (pid int, held bool, err error) {
	return 0, false, state.ErrHolderUnknown
}
