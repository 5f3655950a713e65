//go:build release

// Package release_test checks the release as a user meets it: the
// GoReleaser configuration, the release binary's version, the archives,
// SBOMs and checksums.txt in dist/, and install.sh downloading them from a
// loopback server. `make release-check` runs it after `make dist`.
package release_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const root = "../.."

var dist = filepath.Join(root, "dist")

// platforms are every os_arch a release ships.
var platforms = []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64", "windows_amd64", "windows_arm64"}

// releaseVersion is the version make dist built, without the v.
func releaseVersion(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatalf("no release in dist/ (run make dist first): %v", err)
	}
	var m struct {
		Version string `json:"version"`
		Commit  string `json:"commit"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version == "" {
		t.Fatal("dist/metadata.json names no version")
	}
	return m.Version
}

// distCommit is the commit make dist built.
func distCommit(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Commit string `json:"commit"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Commit
}

func archiveName(version, platform string) string {
	if strings.HasPrefix(platform, "windows_") {
		return "betplan_" + version + "_" + platform + ".zip"
	}
	return "betplan_" + version + "_" + platform + ".tar.gz"
}

func git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

func TestGoreleaserCheck(t *testing.T) {
	tool := os.Getenv("GORELEASER")
	if tool == "" {
		tool = "goreleaser"
	}
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("goreleaser is not installed (%v): make tools installs it", err)
		}
		t.Skipf("goreleaser is not installed (%v): make tools installs it", err)
	}
	cmd := exec.Command(path, "check")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("goreleaser check: %v\n%s", err, out)
	}
}

// TestReleaseBinaryVersion: the release binary names its version, commit
// and the commit's time, never dev or (devel); --format json the same.
func TestReleaseBinaryVersion(t *testing.T) {
	version := releaseVersion(t)
	bin := ""
	for _, a := range artifacts(t) {
		if a.Type == "Binary" && a.Goos == runtime.GOOS && a.Goarch == runtime.GOARCH {
			bin = filepath.Join(root, a.Path)
		}
	}
	if bin == "" {
		t.Fatalf("dist/ has no binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	commit := git(t, "rev-parse", "HEAD")
	date := git(t, "log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%dT%H:%M:%SZ")
	if built := distCommit(t); built != commit {
		t.Fatalf("dist/ was built from commit %s, HEAD is %s: run make dist", built, commit)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	want := regexp.MustCompile(`^betplan ` + regexp.QuoteMeta("v"+version) + ` \(` + commit + `, ` + regexp.QuoteMeta(date) + `, go1\.\S+\)$`)
	if !want.MatchString(first) {
		t.Errorf("betplan version: %q\nwant %s", first, want)
	}
	out, err = exec.Command(bin, "version", "--format", "json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("version --format json: %v\n%s", err, out)
	}
	if got["version"] != "v"+version || got["commit"] != commit || got["build_date"] != date || !strings.HasPrefix(got["go_version"], "go1.") {
		t.Errorf("version --format json: %s", out)
	}
}

type artifact struct {
	Type, Path, Goos, Goarch string
}

// artifacts is what make dist built, as dist/artifacts.json lists it.
func artifacts(t *testing.T) []artifact {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, "artifacts.json"))
	if err != nil {
		t.Fatalf("no release in dist/ (run make dist first): %v", err)
	}
	var all []artifact
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatal(err)
	}
	return all
}

// testHooks are the words of the crash and pause hooks the crash tests
// start the test binary with (crashhook_test.go at the root): only a test
// binary may kill or stop itself at a checkpoint.
var testHooks = []string{"BETPLAN_TEST_CRASH_AT", "BETPLAN_TEST_PAUSE_AT", "crash test: SIGKILL"}

// TestReleaseBinariesHaveNoTestHooks: no binary of the release, whatever
// its platform, carries a test-only hook.
func TestReleaseBinariesHaveNoTestHooks(t *testing.T) {
	n := 0
	for _, a := range artifacts(t) {
		if a.Type != "Binary" {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(root, a.Path))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range testHooks {
			if bytes.Contains(b, []byte(h)) {
				t.Errorf("%s/%s: the release binary carries the test hook %q", a.Goos, a.Goarch, h)
			}
		}
	}
	if n == 0 {
		t.Fatal("dist/artifacts.json lists no binary")
	}
}

// TestChecksumsCoverArchivesAndSBOMs: checksums.txt lists exactly an
// archive and its SBOM per platform, with their true SHA-256; each SBOM is
// CycloneDX JSON of this version, with no serial number or timestamp to
// make two builds of one commit differ.
func TestChecksumsCoverArchivesAndSBOMs(t *testing.T) {
	version := releaseVersion(t)
	b, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var listed, want []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums.txt: %q is not <sha256>  <file>", line)
		}
		listed = append(listed, name)
		if got := fileSHA256(t, filepath.Join(dist, name)); got != sum {
			t.Errorf("checksums.txt says %s of %s, the file is %s", sum, name, got)
		}
	}
	for _, p := range platforms {
		want = append(want, archiveName(version, p), archiveName(version, p)+".sbom.json")
	}
	sort.Strings(listed)
	sort.Strings(want)
	if strings.Join(listed, "\n") != strings.Join(want, "\n") {
		t.Errorf("checksums.txt lists\n%s\nwant\n%s", strings.Join(listed, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range platforms {
		b, err := os.ReadFile(filepath.Join(dist, archiveName(version, p)+".sbom.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sbom struct {
			BOMFormat    string  `json:"bomFormat"`
			SerialNumber *string `json:"serialNumber"`
			Metadata     struct {
				Timestamp *string `json:"timestamp"`
				Component struct {
					Name, Version string
				} `json:"component"`
			} `json:"metadata"`
			Components []json.RawMessage `json:"components"`
		}
		if err := json.Unmarshal(b, &sbom); err != nil {
			t.Fatalf("%s SBOM: %v", p, err)
		}
		if sbom.BOMFormat != "CycloneDX" || sbom.SerialNumber != nil || sbom.Metadata.Timestamp != nil ||
			sbom.Metadata.Component.Version != "v"+version || len(sbom.Components) == 0 {
			t.Errorf("%s SBOM: format %q, serial %v, timestamp %v, component %+v, %d components",
				p, sbom.BOMFormat, sbom.SerialNumber, sbom.Metadata.Timestamp, sbom.Metadata.Component, len(sbom.Components))
		}
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// serve serves dir over plain http on 127.0.0.1, as a release server.
func serve(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// host is this machine's release platform, as uname would name it.
func hostPlatform(t *testing.T) string {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("install.sh is for Linux and macOS, not %s", runtime.GOOS)
	}
	return runtime.GOOS + "_" + runtime.GOARCH
}

// installer is one run of install.sh in a fresh home, with its own
// temporary directory so anything left behind shows.
type installer struct {
	home, tmp, dir string
	env            []string
	path           string
}

func newInstaller(t *testing.T) *installer {
	base := t.TempDir()
	in := &installer{home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"), dir: filepath.Join(base, "bin"), path: os.Getenv("PATH")}
	for _, d := range []string{in.home, in.tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// fakeUname puts first on PATH a uname that says os and arch.
func (in *installer) fakeUname(t *testing.T, os_, arch string) {
	dir := filepath.Join(filepath.Dir(in.home), "fake")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase $1 in -s) echo " + os_ + " ;; -m) echo " + arch + " ;; *) exit 1 ;; esac\n"
	if err := os.WriteFile(filepath.Join(dir, "uname"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	in.path = dir + string(os.PathListSeparator) + in.path
}

func (in *installer) run(t *testing.T, env ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command("/bin/sh", filepath.Join(root, "install.sh"))
	cmd.Env = append([]string{"HOME=" + in.home, "TMPDIR=" + in.tmp, "PATH=" + in.path}, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// refused checks a run failed with one line naming want, and left
// nothing: no binary, no install directory entries, no temporary files.
func (in *installer) refused(t *testing.T, stderr string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("install.sh succeeded, want it refused with %q", want)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, want) || !strings.HasPrefix(stderr, "install.sh: ") {
		t.Errorf("stderr %q: want one line with %q", stderr, want)
	}
	for _, d := range []string{in.dir, in.tmp, filepath.Join(in.home, ".local")} {
		entries, err := os.ReadDir(d)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("left behind: %s", filepath.Join(d, e.Name()))
		}
	}
}

func TestInstallerInstallsAndRuns(t *testing.T) {
	version := releaseVersion(t)
	hostPlatform(t)
	url := serve(t, dist)
	t.Run("version with v, install dir given", func(t *testing.T) {
		in := newInstaller(t)
		stdout, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+url+"/", "BETPLAN_VERSION=v"+version, "BETPLAN_INSTALL_DIR="+in.dir)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s%s", err, stdout, stderr)
		}
		bin := filepath.Join(in.dir, "betplan")
		if !strings.Contains(stdout, "installed "+bin+": betplan v"+version+" (") {
			t.Errorf("stdout %q: want where and which version", stdout)
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil || !strings.HasPrefix(string(out), "betplan v"+version+" (") {
			t.Errorf("installed betplan version: %q, %v", out, err)
		}
		if entries, _ := os.ReadDir(in.tmp); len(entries) > 0 {
			t.Errorf("left %d temporary files", len(entries))
		}
		if entries, _ := os.ReadDir(in.dir); len(entries) != 1 {
			t.Errorf("install dir holds %d files, want betplan only", len(entries))
		}
	})
	t.Run("wget, no curl", func(t *testing.T) {
		// A PATH of exactly the tools install.sh needs, wget for curl.
		in := newInstaller(t)
		tools := filepath.Join(filepath.Dir(in.home), "tools")
		if err := os.Mkdir(tools, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"wget", "uname", "mktemp", "rm", "awk", "cut", "sha256sum", "tar", "gzip", "mkdir", "cp", "chmod", "mv", "head", "sed"} {
			path, err := exec.LookPath(name)
			if err != nil {
				t.Skipf("no %s here: %v", name, err)
			}
			if err := os.Symlink(path, filepath.Join(tools, name)); err != nil {
				t.Fatal(err)
			}
		}
		in.path = tools
		stdout, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+url, "BETPLAN_VERSION="+version, "BETPLAN_INSTALL_DIR="+in.dir)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s%s", err, stdout, stderr)
		}
		if !strings.Contains(stdout, "installed "+filepath.Join(in.dir, "betplan")+": betplan v"+version+" (") {
			t.Errorf("stdout %q: want where and which version", stdout)
		}
	})
	t.Run("version without v, default install dir", func(t *testing.T) {
		in := newInstaller(t)
		stdout, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+url, "BETPLAN_VERSION="+version)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s%s", err, stdout, stderr)
		}
		bin := filepath.Join(in.home, ".local", "bin", "betplan")
		if !strings.Contains(stdout, "installed "+bin+": betplan v"+version+" (") {
			t.Errorf("stdout %q: want where and which version", stdout)
		}
	})
}

// copyRelease puts in a fresh served directory checksums.txt and the
// host's archive, as changed by tamper.
func copyRelease(t *testing.T, version, platform string, tamper func([]byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"checksums.txt", archiveName(version, platform)} {
		b, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Fatal(err)
		}
		if name != "checksums.txt" {
			b = tamper(b)
			if b == nil {
				continue
			}
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestInstallerRefusesTamperedArchive(t *testing.T) {
	version := releaseVersion(t)
	dir := copyRelease(t, version, hostPlatform(t), func(b []byte) []byte {
		b = bytes.Clone(b)
		b[len(b)/2] ^= 0xff
		return b
	})
	in := newInstaller(t)
	_, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+serve(t, dir), "BETPLAN_VERSION="+version, "BETPLAN_INSTALL_DIR="+in.dir)
	in.refused(t, stderr, err, "checksum mismatch for "+archiveName(version, hostPlatform(t)))
}

func TestInstallerMissingArchive(t *testing.T) {
	version := releaseVersion(t)
	dir := copyRelease(t, version, hostPlatform(t), func([]byte) []byte { return nil })
	in := newInstaller(t)
	_, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+serve(t, dir), "BETPLAN_VERSION="+version, "BETPLAN_INSTALL_DIR="+in.dir)
	in.refused(t, stderr, err, "cannot download")

	in = newInstaller(t)
	_, stderr, err = in.run(t, "BETPLAN_DOWNLOAD_URL="+serve(t, t.TempDir()), "BETPLAN_VERSION=9.9.9", "BETPLAN_INSTALL_DIR="+in.dir)
	in.refused(t, stderr, err, "checksums.txt: is betplan 9.9.9 released there?")

	in = newInstaller(t)
	_, stderr, err = in.run(t, "BETPLAN_DOWNLOAD_URL="+serve(t, dist), "BETPLAN_VERSION=9.9.9", "BETPLAN_INSTALL_DIR="+in.dir)
	in.refused(t, stderr, err, "checksums.txt lists no betplan_9.9.9_"+hostPlatform(t)+".tar.gz")
}

func TestInstallerUnknownPlatform(t *testing.T) {
	version := releaseVersion(t)
	url := serve(t, dist)
	for _, tt := range []struct{ os, arch, want string }{
		{"Linux", "riscv64", "unsupported architecture riscv64"},
		{"FreeBSD", "x86_64", "unsupported operating system FreeBSD"},
		{"MINGW64_NT-10.0", "x86_64", "unsupported operating system MINGW64_NT-10.0"},
	} {
		t.Run(tt.os+"/"+tt.arch, func(t *testing.T) {
			in := newInstaller(t)
			in.fakeUname(t, tt.os, tt.arch)
			_, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+url, "BETPLAN_VERSION="+version, "BETPLAN_INSTALL_DIR="+in.dir)
			in.refused(t, stderr, err, tt.want)
		})
	}
}

// TestInstallerRefusesPlainHTTPOffLoopback: the addresses are never asked;
// the refusal comes first.
func TestInstallerRefusesPlainHTTPOffLoopback(t *testing.T) {
	hostPlatform(t)
	for _, tt := range []struct{ url, want string }{
		{"http://example.com/betplan", "refusing plain http:// to example.com"},
		{"http://127.0.0.1.example.com/dl", "refusing plain http:// to 127.0.0.1.example.com"},
		{"http://127.0.0.1@example.com:8080/dl", "refusing plain http:// to example.com"},
		{"http://[2001:db8::1]/dl", "refusing plain http:// to [2001:db8::1]"},
		{"ftp://127.0.0.1/dl", "must start with https://"},
	} {
		t.Run(tt.url, func(t *testing.T) {
			in := newInstaller(t)
			_, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL="+tt.url, "BETPLAN_VERSION=1.2.3", "BETPLAN_INSTALL_DIR="+in.dir)
			in.refused(t, stderr, err, tt.want)
		})
	}
	t.Run("custom URL without a version", func(t *testing.T) {
		in := newInstaller(t)
		_, stderr, err := in.run(t, "BETPLAN_DOWNLOAD_URL=https://mirror.example.com/betplan", "BETPLAN_INSTALL_DIR="+in.dir)
		in.refused(t, stderr, err, "BETPLAN_DOWNLOAD_URL needs BETPLAN_VERSION")
	})
}

// TestSetupActionInstalls runs the setup action's step as a runner would:
// it finds install.sh from the action's own directory, installs the pinned
// release and puts it on PATH.
func TestSetupActionInstalls(t *testing.T) {
	version := releaseVersion(t)
	hostPlatform(t)
	b, err := os.ReadFile(filepath.Join(root, "examples/ci/actions/setup-betplan/action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Required bool `yaml:"required"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				Shell string            `yaml:"shell"`
				Env   map[string]string `yaml:"env"`
				Run   string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" || len(action.Runs.Steps) != 1 || !action.Inputs["version"].Required {
		t.Fatalf("want a composite action of one step with a required version: %+v", action)
	}
	step := action.Runs.Steps[0]
	if step.Env["BETPLAN_VERSION"] != "${{ inputs.version }}" || !strings.Contains(step.Env["BETPLAN_INSTALL_DIR"], "inputs.install-dir") {
		t.Errorf("the step's env does not pass the inputs on: %v", step.Env)
	}
	actionPath, err := filepath.Abs(filepath.Join(root, "examples/ci/actions/setup-betplan"))
	if err != nil {
		t.Fatal(err)
	}
	in := newInstaller(t)
	ghPath, ghOutput := filepath.Join(in.home, "github_path"), filepath.Join(in.home, "github_output")
	cmd := exec.Command("/bin/sh", "-e", "-c", step.Run)
	cmd.Dir = in.home
	cmd.Env = []string{"HOME=" + in.home, "TMPDIR=" + in.tmp, "PATH=" + in.path,
		"GITHUB_ACTION_PATH=" + actionPath, "GITHUB_PATH=" + ghPath, "GITHUB_OUTPUT=" + ghOutput,
		"BETPLAN_VERSION=" + version, "BETPLAN_INSTALL_DIR=" + in.dir, "BETPLAN_DOWNLOAD_URL=" + serve(t, dist)}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("setup-betplan: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(ghPath); strings.TrimSpace(string(b)) != in.dir {
		t.Errorf("GITHUB_PATH: %q, want %s", b, in.dir)
	}
	if b, _ := os.ReadFile(ghOutput); strings.TrimSpace(string(b)) != "path="+filepath.Join(in.dir, "betplan") {
		t.Errorf("GITHUB_OUTPUT: %q", b)
	}
	if out, err := exec.Command(filepath.Join(in.dir, "betplan"), "version").Output(); err != nil || !strings.HasPrefix(string(out), "betplan v"+version+" (") {
		t.Errorf("installed betplan version: %q, %v", out, err)
	}
}

// TestGoInstallOfATagNamesIt: go install github.com/betplan/betplan@vX.Y.Z
// builds without the release's flags, and still names its version (from
// the module's build info), never dev or (devel). The tag is served by a
// file proxy holding this commit as v0.99.9, dependencies by the module
// cache already here.
func TestGoInstallOfATagNamesIt(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	modcache := strings.TrimSpace(goEnv(t, goTool, "GOMODCACHE"))
	base := t.TempDir()
	const version = "v0.99.9"
	at := filepath.Join(base, "proxy", "github.com", "betplan", "betplan", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, "archive", "--format=zip", "--prefix=github.com/betplan/betplan@"+version+"/", "-o", filepath.Join(at, version+".zip"), "HEAD")
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		version + ".mod":  string(mod),
		version + ".info": `{"Version":"` + version + `","Time":"2026-11-27T00:00:00Z"}`,
		"list":            version + "\n",
	} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(base, "bin")
	cmd := exec.Command(goTool, "install", "-trimpath", "github.com/betplan/betplan@"+version)
	cmd.Dir = base
	cmd.Env = append(os.Environ(),
		"GOBIN="+bin, "GOMODCACHE="+filepath.Join(base, "modcache"), "GOFLAGS=-modcacherw",
		"GOPROXY=file://"+filepath.Join(base, "proxy")+",file://"+filepath.Join(modcache, "cache", "download"),
		"GOSUMDB=off", "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "betplan"), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "betplan " + version + " ("; !strings.HasPrefix(string(out), want) {
		t.Errorf("betplan version after go install: %q, want %q...", out, want)
	}
}

func goEnv(t *testing.T, goTool, key string) string {
	t.Helper()
	out, err := exec.Command(goTool, "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestReleaseArchivesHoldTheDocs: every archive holds the binary, the
// README and each docs page the README's links lead to, at the same paths.
func TestReleaseArchivesHoldTheDocs(t *testing.T) {
	version := releaseVersion(t)
	want := []string{"README.md"}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range append(pages, more...) {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, filepath.ToSlash(rel))
	}
	if len(want) < 10 {
		t.Fatalf("found %d docs pages under %s/docs: is this the repository?", len(want)-1, root)
	}
	for _, p := range platforms {
		name := archiveName(version, p)
		has, err := archiveFiles(filepath.Join(dist, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		bin := "betplan"
		if strings.HasPrefix(p, "windows_") {
			bin += ".exe"
		}
		for _, f := range append([]string{bin}, want...) {
			if !has[f] {
				t.Errorf("%s holds no %s", name, f)
			}
		}
	}
}

// archiveFiles are the names an archive of dist/ holds.
func archiveFiles(path string) (map[string]bool, error) {
	has := map[string]bool{}
	if strings.HasSuffix(path, ".zip") {
		z, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer z.Close()
		for _, f := range z.File {
			has[f.Name] = true
		}
		return has, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return has, nil
		}
		if err != nil {
			return nil, err
		}
		has[strings.TrimPrefix(h.Name, "./")] = true
	}
}
