package local

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockedBy reads /proc/locks, the kernel's table of file locks, for an
// flock on the file fi names: reading it takes no lock. pid is the
// holder's as this process's namespace sees it (0 when it cannot).
func lockedBy(fi fs.FileInfo) (pid int, held bool, err error) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false, fmt.Errorf("lock file %s: no device and inode", fi.Name())
	}
	dev := uint64(st.Dev) // a uint32 on some platforms
	// As the kernel prints them: major:minor in hex, then the inode.
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), st.Ino)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4242 fe:00:10019169 0 EOF"; a
		// waiter's line has "->" after the number.
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue
		}
		pid, _ := strconv.Atoi(fields[4])
		return max(pid, 0), true, nil
	}
	return 0, false, sc.Err()
}
