package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/spf13/pflag"
)

// version, commit and date are set by a release build with -ldflags
// "-X github.com/betplan/betplan/cli.version=v1.2.3 -X …/cli.commit=<full
// hash> -X …/cli.date=<commit time, RFC 3339>" (the Makefile's PKG). A build without them (go install ...@v1.2.3) takes them
// from the module's build info when the program starts, so reports, SARIF
// logs and `betplan version` all carry the same version.
var (
	version = ""
	commit  = ""
	date    = ""
)

func init() {
	bi, _ := debug.ReadBuildInfo()
	b := resolveBuild(version, commit, date, bi, runtime.Version())
	version, commit, date = b.Version, b.Commit, b.BuildDate
}

// unknownBuild stands for a commit or build date this binary cannot tell.
const unknownBuild = "unknown"

// buildDescription is what `betplan version` says of this binary.
type buildDescription struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"build_date"`
	GoVersion string `json:"go_version"`
}

// pseudoVersion is the tail of a Go pseudo-version:
// v0.0.0-20261127222526-abcdef123456, v1.2.4-0.20261127222526-abcdef123456.
var pseudoVersion = regexp.MustCompile(`[-.](\d{14})-([0-9a-f]{12})(?:\+.*)?$`)

// resolveBuild describes a build: what the release's flags say first, then
// the module's build info (the module version of go install, the VCS
// revision and time of a build in a checkout, or those a pseudo-version
// encodes), else "dev" and unknown.
func resolveBuild(ldVersion, ldCommit, ldDate string, bi *debug.BuildInfo, goVersion string) buildDescription {
	d := buildDescription{Version: ldVersion, Commit: ldCommit, BuildDate: ldDate, GoVersion: goVersion}
	if bi != nil {
		if d.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			d.Version = bi.Main.Version
		}
		var revision, vcsTime string
		modified := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if revision != "" && modified {
			revision += "-dirty"
		}
		if m := pseudoVersion.FindStringSubmatch(bi.Main.Version); m != nil {
			if revision == "" {
				revision = m[2]
			}
			if t, err := time.Parse("20060102150405", m[1]); err == nil && vcsTime == "" {
				vcsTime = t.UTC().Format(time.RFC3339)
			}
		}
		if d.Commit == "" {
			d.Commit = revision
		}
		if d.BuildDate == "" {
			d.BuildDate = vcsTime
		}
	}
	if d.Version == "" {
		d.Version = "dev"
	}
	if d.Commit == "" {
		d.Commit = unknownBuild
	}
	if d.BuildDate == "" {
		d.BuildDate = unknownBuild
	}
	return d
}

type versionOptions struct {
	Format string
}

func (o *versionOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Format, "format", "text", "output format: text or json")
}

func (o *versionOptions) validate() error {
	if o.Format != "text" && o.Format != "json" {
		return usagef("unknown --format %q: text or json", o.Format)
	}
	return nil
}

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print the betplan version, commit, build date and Go version",
		exits: []exitDoc{
			{exitOK, "the version was printed"},
			{exitUsage, "usage error"},
		},
		examples: `  betplan version
  betplan version --format json
`,
		setup: bindTo((*versionOptions).bind, printVersion),
	}
}

func printVersion(_ context.Context, sys *sysIO, o *versionOptions, args []string) error {
	if len(args) > 0 {
		return usagef("version takes no arguments, got %q", args[0])
	}
	b := buildDescription{Version: version, Commit: commit, BuildDate: date, GoVersion: runtime.Version()}
	if o.Format == "json" {
		enc := json.NewEncoder(sys.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(b)
	}
	_, err := fmt.Fprintf(sys.Stdout, "betplan %s (%s, %s, %s)\n", b.Version, b.Commit, b.BuildDate, b.GoVersion)
	return err
}
