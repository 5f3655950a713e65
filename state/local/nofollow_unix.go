//go:build !windows

package local

import "syscall"

// oNoFollow makes opening a journal that is a symbolic link fail.
const oNoFollow = syscall.O_NOFOLLOW
