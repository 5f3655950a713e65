package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/pem"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The installer's tests run install.sh as a user would, against releases
// built here and served on loopback: each archive is what a hostile or
// broken mirror could serve, with a checksums.txt that matches it (the
// checksum proves a whole download, not a good one). `make release-check`
// (internal/release) runs the same script against the real release.

// installerTool finds a tool install.sh or its tests need.
func installerTool(t *testing.T, name string) string {
	t.Helper()
	return program(t, name, "install.sh is not tested with it")
}

// installerPlatform is this machine's <os>_<arch> as the archives name it.
func installerPlatform(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("install.sh is for Linux and macOS, not %s", runtime.GOOS)
	}
	return runtime.GOOS + "_" + runtime.GOARCH
}

// archiveEntry is one entry of a release archive.
type archiveEntry struct {
	hdr  tar.Header
	body []byte
}

func regularEntry(name string, body []byte) archiveEntry {
	return archiveEntry{hdr: tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(body))}, body: body}
}

// versionScript is a betplan that runs anywhere and says it is version.
func versionScript(version string) []byte {
	return []byte("#!/bin/sh\n[ \"$1\" = version ] || exit 2\necho 'betplan " + version + " (0123456789abcdef, 2026-11-27T00:00:00Z, go1.26.0)'\n")
}

// serveRelease serves, over plain http on loopback, a release of version
// for this machine: an archive of entries (and the README, as the real
// one has) and a checksums.txt that lists its true SHA-256.
func serveRelease(t *testing.T, version string, entries ...archiveEntry) string {
	t.Helper()
	dir := t.TempDir()
	writeRelease(t, dir, version, entries...)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeRelease(t *testing.T, dir, version string, entries ...archiveEntry) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	entries = append([]archiveEntry{regularEntry("README.md", []byte("# betplan\n"))}, entries...)
	for _, e := range entries {
		hdr := e.hdr
		hdr.ModTime = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
		if hdr.Mode == 0 {
			hdr.Mode = 0o644
		}
		if err := tw.WriteHeader(&hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	archive := "betplan_" + version + "_" + installerPlatform(t) + ".tar.gz"
	sum := sha256.Sum256(buf.Bytes())
	checksums := hex.EncodeToString(sum[:]) + "  " + archive + "\n"
	if err := os.WriteFile(filepath.Join(dir, archive), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(checksums), 0o644); err != nil {
		t.Fatal(err)
	}
}

// installRun is a run of install.sh in a fresh home, with its own
// temporary directory so that anything left behind shows.
type installRun struct {
	home, tmp, dir string
	path           string   // PATH
	env            []string // more of the environment
}

func newInstallRun(t *testing.T) *installRun {
	t.Helper()
	installerTool(t, "sh")
	installerTool(t, "tar")
	base := t.TempDir()
	r := &installRun{home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp"), dir: filepath.Join(base, "bin"), path: os.Getenv("PATH")}
	for _, d := range []string{r.home, r.tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// run runs install.sh for version from the release at url, into r.dir.
func (r *installRun) run(t *testing.T, url, version string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "install.sh")
	cmd.Env = append([]string{"HOME=" + r.home, "TMPDIR=" + r.tmp, "PATH=" + r.path,
		"BETPLAN_DOWNLOAD_URL=" + url, "BETPLAN_VERSION=" + version, "BETPLAN_INSTALL_DIR=" + r.dir}, r.env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("install.sh did not finish in a minute\n%s%s", o.String(), e.String())
	}
	return o.String(), e.String(), err
}

// refused checks that a run failed with one line on stderr that says want.
func refused(t *testing.T, stdout, stderr string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("install.sh succeeded, want it refused with %q\n%s", want, stdout)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "install.sh: ") || !strings.Contains(stderr, want) {
		t.Errorf("stderr %q: want one line saying %q", stderr, want)
	}
}

// holdsOnly checks that dir holds exactly the names given (none: dir is
// empty or absent).
func holdsOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("%s holds %q, want %q", dir, got, names)
	}
}

// otherArchitecture is a copy of this machine's `true` (an ELF binary)
// marked as built for another machine, as an archive of the wrong
// platform would hold; nil where `true` is not ELF.
func otherArchitecture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(installerTool(t, "true"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	other := elf.EM_AARCH64
	if f.Machine == elf.EM_AARCH64 {
		other = elf.EM_X86_64
	}
	b = bytes.Clone(b)
	f.ByteOrder.PutUint16(b[18:20], uint16(other)) // e_machine
	return b
}

// TestInstallerKeepsAWorkingInstall: over a betplan that runs, an archive
// whose betplan does not (it fails, is cut short, is for another machine,
// or is not the version asked for) installs nothing: the old binary is
// untouched and still runs, and no temporary file is left beside it. One
// that runs replaces it.
func TestInstallerKeepsAWorkingInstall(t *testing.T) {
	t.Parallel()
	const version = "1.2.3"
	platform := installerPlatform(t)
	archive := "betplan_" + version + "_" + platform + ".tar.gz"
	real, err := os.ReadFile(installerTool(t, "true"))
	if err != nil {
		t.Fatal(err)
	}
	old := versionScript("v0.1.0")
	for _, tt := range []struct {
		name, want string
		binary     []byte
	}{
		{"exits 1", "the betplan in " + archive + " does not run on this machine ('betplan version' exits with 1): nothing installed", []byte("#!/bin/sh\nexit 1\n")},
		{"truncated", "the betplan in " + archive, real[:len(real)/2]},
		{"another architecture", "the betplan in " + archive, otherArchitecture(t)},
		{"another version", "the betplan in " + archive + ` is not betplan v1.2.3 ('betplan version' says "betplan v9.9.9 (0123456789abcdef, 2026-11-27T00:00:00Z, go1.26.0)"): nothing installed`, versionScript("v9.9.9")},
		{"says nothing", "the betplan in " + archive + ` is not betplan v1.2.3 ('betplan version' says ""): nothing installed`, []byte("#!/bin/sh\nexit 0\n")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.binary == nil {
				t.Skip("this machine's binaries are not ELF")
			}
			r := newInstallRun(t)
			if err := os.Mkdir(r.dir, 0o755); err != nil {
				t.Fatal(err)
			}
			installed := filepath.Join(r.dir, "betplan")
			if err := os.WriteFile(installed, old, 0o755); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, err := r.run(t, serveRelease(t, version, regularEntry("betplan", tt.binary)), version)
			refused(t, stdout, stderr, err, tt.want)
			if !strings.Contains(stderr, "nothing installed") {
				t.Errorf("stderr %q: want it to say nothing was installed", stderr)
			}
			if b, err := os.ReadFile(installed); err != nil || !bytes.Equal(b, old) {
				t.Errorf("the working betplan was replaced (%v)", err)
			}
			if out, err := exec.Command(installed, "version").Output(); err != nil || !strings.HasPrefix(string(out), "betplan v0.1.0 (") {
				t.Errorf("the old betplan no longer runs: %q, %v", out, err)
			}
			holdsOnly(t, r.dir, "betplan")
			holdsOnly(t, r.tmp)
		})
	}
	t.Run("runs", func(t *testing.T) {
		t.Parallel()
		r := newInstallRun(t)
		if err := os.Mkdir(r.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		installed := filepath.Join(r.dir, "betplan")
		if err := os.WriteFile(installed, old, 0o755); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := r.run(t, serveRelease(t, version, regularEntry("betplan", versionScript("v"+version))), "v"+version)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s%s", err, stdout, stderr)
		}
		if want := "installed " + installed + ": betplan v1.2.3 (0123456789abcdef, "; !strings.Contains(stdout, want) {
			t.Errorf("stdout %q: want %q", stdout, want)
		}
		if out, err := exec.Command(installed, "version").Output(); err != nil || !strings.HasPrefix(string(out), "betplan v1.2.3 (") {
			t.Errorf("installed betplan version: %q, %v", out, err)
		}
		if fi, err := os.Stat(installed); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("installed betplan: %v, %v; want mode 755", fi.Mode(), err)
		}
		holdsOnly(t, r.dir, "betplan")
		holdsOnly(t, r.tmp)
	})
}

// TestInstallerTakesOnlyARegularFile: an archive whose betplan entry is
// not a regular file (a symbolic link to a local secret, alone or after a
// file of the same name; a hard link; a directory; a device; a pipe) is
// refused with what the entry is, and nothing is copied anywhere.
func TestInstallerTakesOnlyARegularFile(t *testing.T) {
	t.Parallel()
	const version = "1.2.3"
	installerPlatform(t)
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "token")
	const secretText = "a local secret: 5f3c9a"
	if err := os.WriteFile(secret, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(typ byte, name, target string) archiveEntry {
		return archiveEntry{hdr: tar.Header{Typeflag: typ, Name: name, Linkname: target, Mode: 0o777}}
	}
	for _, tt := range []struct {
		name, want string
		entries    []archiveEntry
	}{
		{"symbolic link to a local file", "the betplan in betplan_1.2.3_" + installerPlatform(t) + ".tar.gz is a symbolic link, not a regular file: nothing installed", []archiveEntry{link(tar.TypeSymlink, "betplan", secret)}},
		{"file, then a symbolic link of that name", "is a symbolic link", []archiveEntry{regularEntry("betplan", versionScript("v"+version)), link(tar.TypeSymlink, "betplan", secret)}},
		{"hard link", "is a hard link", []archiveEntry{link(tar.TypeLink, "betplan", "README.md")}},
		{"directory", "is a directory", []archiveEntry{{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "betplan/", Mode: 0o755}}, regularEntry("betplan/betplan", versionScript("v"+version))}},
		{"character device", "is a character device", []archiveEntry{{hdr: tar.Header{Typeflag: tar.TypeChar, Name: "betplan", Devmajor: 1, Devminor: 3}}}},
		{"named pipe", "is a named pipe", []archiveEntry{{hdr: tar.Header{Typeflag: tar.TypeFifo, Name: "betplan"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newInstallRun(t)
			stdout, stderr, err := r.run(t, serveRelease(t, version, tt.entries...), version)
			refused(t, stdout, stderr, err, tt.want)
			if !strings.Contains(stderr, "not a regular file: nothing installed") {
				t.Errorf("stderr %q: want it to say the entry is not a regular file", stderr)
			}
			holdsOnly(t, r.dir)
			holdsOnly(t, r.tmp)
			// The secret is nowhere but where it was.
			filepath.WalkDir(filepath.Dir(r.home), func(path string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return nil
				}
				if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(secretText)) {
					t.Errorf("the secret was copied to %s", path)
				}
				return nil
			})
		})
	}
}

// installerTools is a directory holding exactly the tools install.sh uses,
// with the downloader given (curl or wget) and not the other: a PATH
// that hides one of them.
func installerTools(t *testing.T, downloader string) string {
	t.Helper()
	dir := t.TempDir()
	sum := "sha256sum"
	if _, err := exec.LookPath(sum); err != nil {
		sum = "shasum"
	}
	for _, name := range []string{downloader, sum, "uname", "mktemp", "rm", "awk", "cut", "sed", "head", "tar", "gzip", "mkdir", "cp", "chmod", "mv"} {
		if err := os.Symlink(installerTool(t, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInstallerRedirects: curl and wget download by the same rules, each
// with a PATH that hides the other. A plain http:// download (loopback
// only) follows no redirect, not even to another port of this machine; an
// https:// one follows redirects to https:// only (another host too: the
// GitHub release's downloads move to its own), at most 10, and never one
// to plain http. A download cut short is not asked for again. The
// refusals are one line, the same with either tool.
func TestInstallerRedirects(t *testing.T) {
	t.Parallel()
	const version = "1.2.3"
	platform := installerPlatform(t)
	archive := "betplan_" + version + "_" + platform + ".tar.gz"
	release := t.TempDir()
	writeRelease(t, release, version, regularEntry("betplan", versionScript("v"+version)))
	files := http.FileServer(http.Dir(release))

	plain := httptest.NewServer(files)
	t.Cleanup(plain.Close)
	// The same release on another host name and port of this machine.
	elsewhere := strings.Replace(plain.URL, "127.0.0.1", "localhost", 1)
	secure := httptest.NewTLSServer(files)
	t.Cleanup(secure.Close)
	plainRedirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(plainRedirect.Close)
	var mu sync.Mutex
	asked := map[string]int{}
	tlsRedirect := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Counted per tool: curl/8.0, Wget/1.21.
		tool, _, _ := strings.Cut(r.UserAgent(), "/")
		mu.Lock()
		asked[tool+" "+r.URL.Path]++
		n := asked[tool+" "+r.URL.Path]
		mu.Unlock()
		where, file, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		switch where {
		case "to-http":
			http.Redirect(w, r, elsewhere+"/"+file, http.StatusFound)
		case "to-https":
			http.Redirect(w, r, secure.URL+"/"+file, http.StatusMovedPermanently)
		case "relative":
			w.Header().Set("Location", "../release/"+file)
			w.WriteHeader(http.StatusTemporaryRedirect)
		case "release":
			http.StripPrefix("/release", files).ServeHTTP(w, r)
		case "loop":
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		case "cut":
			if file != archive || n > 1 {
				http.StripPrefix("/cut", files).ServeHTTP(w, r)
				return
			}
			b, err := os.ReadFile(filepath.Join(release, archive))
			if err != nil {
				t.Error(err)
				return
			}
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.Write(b[:len(b)/2])
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(tlsRedirect.Close)
	// Both tools trust the test servers' certificate through their own
	// settings; install.sh passes none.
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsRedirect.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	wgetrc := filepath.Join(t.TempDir(), "wgetrc")
	if err := os.WriteFile(wgetrc, []byte("ca_certificate = "+ca+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	refusals := []struct{ name, url, want string }{
		{"http to another port", plainRedirect.URL,
			"install.sh: refusing the redirect from " + plainRedirect.URL + "/checksums.txt to " + elsewhere + "/checksums.txt: a plain http:// download follows no redirect\n"},
		{"https to http", tlsRedirect.URL + "/to-http",
			"install.sh: refusing the redirect from " + tlsRedirect.URL + "/to-http/checksums.txt to " + elsewhere + "/checksums.txt: redirects are followed to https:// only\n"},
		{"a redirect loop", tlsRedirect.URL + "/loop",
			"install.sh: cannot download " + tlsRedirect.URL + "/loop/checksums.txt: more than 10 redirects\n"},
		{"cut short", tlsRedirect.URL + "/cut",
			"install.sh: cannot download " + tlsRedirect.URL + "/cut/" + archive + "\n"},
	}
	for _, downloader := range []string{"curl", "wget"} {
		tools := installerTools(t, downloader)
		t.Run(downloader, func(t *testing.T) {
			for _, tt := range refusals {
				t.Run(tt.name, func(t *testing.T) {
					r := newInstallRun(t)
					r.path = tools
					r.env = []string{"CURL_CA_BUNDLE=" + ca, "WGETRC=" + wgetrc}
					stdout, stderr, err := r.run(t, tt.url, version)
					if err == nil || stderr != tt.want {
						t.Errorf("install.sh: %v\nstdout %q\nstderr %q\nwant   %q", err, stdout, stderr, tt.want)
					}
					holdsOnly(t, r.dir)
					holdsOnly(t, r.tmp)
				})
			}
			if downloader == "wget" {
				t.Run("a wget that is not GNU Wget", func(t *testing.T) {
					// BusyBox's wget has no --version; this one downloads as
					// the real one does.
					fake := t.TempDir()
					script := "#!/bin/sh\n[ \"$1\" = --version ] && { echo \"wget: unrecognized option '--version'\" >&2; exit 1; }\nexec " + installerTool(t, "wget") + " \"$@\"\n"
					if err := os.WriteFile(filepath.Join(fake, "wget"), []byte(script), 0o755); err != nil {
						t.Fatal(err)
					}
					r := newInstallRun(t)
					r.path = fake + string(os.PathListSeparator) + tools
					stdout, stderr, err := r.run(t, plainRedirect.URL, version)
					refused(t, stdout, stderr, err, "the wget here is not GNU Wget, whose options install.sh needs: install curl or GNU Wget")
					holdsOnly(t, r.dir)
					holdsOnly(t, r.tmp)
				})
			}
			for _, tt := range []struct{ name, url string }{
				{"https to another host", tlsRedirect.URL + "/to-https"},
				{"https, relative", tlsRedirect.URL + "/relative"},
				{"plain http on loopback", plain.URL},
			} {
				t.Run(tt.name, func(t *testing.T) {
					r := newInstallRun(t)
					r.path = tools
					r.env = []string{"CURL_CA_BUNDLE=" + ca, "WGETRC=" + wgetrc}
					stdout, stderr, err := r.run(t, tt.url, version)
					if err != nil || !strings.Contains(stdout, "installed "+filepath.Join(r.dir, "betplan")+": betplan v1.2.3 (") {
						t.Errorf("install.sh: %v\nstdout %q\nstderr %q", err, stdout, stderr)
					}
				})
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for _, tool := range []string{"curl", "Wget"} {
		if n := asked[tool+" /cut/"+archive]; n != 1 {
			t.Errorf("%s asked for the archive cut short %d times, want once", tool, n)
		}
	}
}
