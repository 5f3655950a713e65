package cli

import (
	"runtime/debug"
	"testing"
)

// TestResolveBuild is where `betplan version` gets its fields: a
// release's flags win; go install ...@vX.Y.Z gives the module version; a
// checkout's build gives the VCS revision and time; a pseudo-version
// carries its own; nothing known reads dev and unknown, never (devel).
func TestResolveBuild(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	tests := []struct {
		name                string
		ldVersion, ldCommit string
		ldDate              string
		bi                  *debug.BuildInfo
		want                buildDescription
	}{
		{
			name:      "release flags",
			ldVersion: "v1.2.3", ldCommit: "0123456789abcdef0123456789abcdef01234567", ldDate: "2026-11-27T10:00:00Z",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: buildDescription{"v1.2.3", "0123456789abcdef0123456789abcdef01234567", "2026-11-27T10:00:00Z", "go1.26.8"},
		},
		{
			name: "go install of a tag",
			bi:   &debug.BuildInfo{Main: debug.Module{Path: "github.com/betplan/betplan", Version: "v1.2.3", Sum: "h1:abc="}},
			want: buildDescription{"v1.2.3", unknownBuild, unknownBuild, "go1.26.8"},
		},
		{
			name: "go install of a commit",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v1.2.4-0.20261127222526-abcdef123456"}},
			want: buildDescription{"v1.2.4-0.20261127222526-abcdef123456", "abcdef123456", "2026-11-27T22:25:26Z", "go1.26.8"},
		},
		{
			name: "build in a checkout",
			bi: &debug.BuildInfo{
				Main:     debug.Module{Version: "v0.0.0-20261127222526-abcdef123456+dirty"},
				Settings: settings("vcs", "git", "vcs.revision", "abcdef1234567890abcdef1234567890abcdef12", "vcs.time", "2026-11-27T22:25:26Z", "vcs.modified", "true"),
			},
			want: buildDescription{"v0.0.0-20261127222526-abcdef123456+dirty", "abcdef1234567890abcdef1234567890abcdef12-dirty", "2026-11-27T22:25:26Z", "go1.26.8"},
		},
		{
			name: "plain go build",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: buildDescription{"dev", unknownBuild, unknownBuild, "go1.26.8"},
		},
		{
			name: "no build info",
			want: buildDescription{"dev", unknownBuild, unknownBuild, "go1.26.8"},
		},
		{
			name:      "make build stamps the version only",
			ldVersion: "v1.2.3-4-gabcdef1",
			bi:        &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: settings("vcs.revision", "abcdef1234567890abcdef1234567890abcdef12", "vcs.time", "2026-11-27T22:25:26Z")},
			want:      buildDescription{"v1.2.3-4-gabcdef1", "abcdef1234567890abcdef1234567890abcdef12", "2026-11-27T22:25:26Z", "go1.26.8"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resolveBuild(tt.ldVersion, tt.ldCommit, tt.ldDate, tt.bi, "go1.26.8")
			if got != tt.want {
				t.Errorf("resolveBuild:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
