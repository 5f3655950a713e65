package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// stampPackage is where the version stamped at build time lives.
const stampPackage = "github.com/betplan/betplan/cli"

// TestBuildStampsVersion: a binary built with the Makefile's -ldflags
// reports the version, commit and date stamped into it. A stamp naming a
// variable that is not there is no error to the linker: the binary would
// say "dev" and nothing else would notice.
func TestBuildStampsVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	const (
		version = "v9.8.7-stamped"
		commit  = "0123456789abcdef0123456789abcdef01234567"
		date    = "2026-12-07T01:02:03Z"
	)
	out, err := exec.Command("make", "-n", "build", "GO=go", "VERSION="+version, "COMMIT="+commit, "BUILD_DATE="+date).Output()
	if err != nil {
		t.Skipf("make -n build: %v (make is not here)", err)
	}
	m := regexp.MustCompile(`-ldflags "([^"]*)"`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("make -n build gives no -ldflags:\n%s", out)
	}
	bin := filepath.Join(t.TempDir(), "betplan")
	args := []string{"build", "-ldflags", string(m[1]), "-o", bin}
	if raceBuild() {
		// The packages are compiled for the race detector already: only
		// the link is new.
		args = append(args, "-race")
	}
	if b, err := exec.Command("go", append(args, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	got, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("betplan version: %v", err)
	}
	want := regexp.MustCompile(`^betplan ` + regexp.QuoteMeta(version) + ` \(` + commit + `, ` + regexp.QuoteMeta(date) + `, go1\.\S+\)\n$`)
	if !want.Match(got) {
		t.Errorf("betplan version = %q, want %s", got, want)
	}
}

// TestStampsNameTheCommandsPackage: the Dockerfile's and GoReleaser's
// builds stamp the same three variables as the Makefile's.
func TestStampsNameTheCommandsPackage(t *testing.T) {
	x := regexp.MustCompile(`-X\s+(\S+)=`)
	for _, f := range []string{"Makefile", "Dockerfile", ".goreleaser.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := strings.ReplaceAll(string(b), "$(PKG)", stampPackage)
		var names []string
		for _, m := range x.FindAllStringSubmatch(src, -1) {
			names = append(names, m[1])
		}
		want := []string{stampPackage + ".version", stampPackage + ".commit", stampPackage + ".date"}
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("%s stamps %q, want %q", f, names, want)
		}
	}
}

// raceBuild says whether this test binary was built with -race.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
