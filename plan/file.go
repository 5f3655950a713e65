package plan

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadFile reads a plan: a regular file of at most MaxFileSize. Anything
// else is refused without waiting on it: a named pipe would block the
// read until a writer came (deaf to Ctrl-C), and a device such as
// /dev/zero never ends.
func ReadFile(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, plainError(err))
	}
	if err := regular(path, info); err != nil {
		return nil, err
	}
	// O_NONBLOCK: should the path become a pipe between the Stat and the
	// open, the open does not wait for a writer; the Stat below refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, plainError(err))
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, plainError(err))
	}
	if err := regular(path, info); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, plainError(err))
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than %d MiB: refusing to read it (is this the right file?)", path, MaxFileSize>>20)
	}
	return data, nil
}

func regular(path string, info fs.FileInfo) error {
	m := info.Mode()
	if m.IsRegular() {
		if info.Size() > MaxFileSize {
			return fmt.Errorf("%s: larger than %d MiB: refusing to read it (is this the right file?)", path, MaxFileSize>>20)
		}
		return nil
	}
	what := "a special file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s: not a regular file (%s)", path, what)
}

// plainError is err without the operation and path os puts before it.
func plainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
