package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/betplan/betplan/limit"
)

// ConfigFileName is the account file: the limits every plan of the
// account is held to together, reviewed in the plans' repository.
const ConfigFileName = "betplan.yaml"

// IsAccountFile reports whether path names the account file rather than
// a plan. Every command that lists plans in a directory asks it, so the
// account file is never read as a plan.
func IsAccountFile(path string) bool {
	return filepath.Base(path) == ConfigFileName
}

// LooksLikeAccountFile reports whether src reads as an account file
// rather than a plan, whatever its name: a mapping of the account file's
// keys only (version, limits, notify), with limits or notify. A plan
// always has a name and bets or tips, so neither is taken for the other.
// Aliases are not expanded: this reads the top-level keys only.
func LooksLikeAccountFile(src []byte) bool {
	if len(src) > MaxFileSize {
		return false
	}
	var doc, more yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if dec.Decode(&doc) != nil || len(doc.Content) != 1 || !errors.Is(dec.Decode(&more), io.EOF) {
		return false
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return false
	}
	account := false
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch top.Content[i].Value {
		case "version":
		case "limits", "notify":
			account = true
		default:
			return false
		}
	}
	return account
}

// Config is a checked account file.
type Config struct {
	Filename string
	Hash     string // "sha256:<hex>" of the file's bytes
	Version  int
	// Limits hold across every bet of every plan that shares the state;
	// the zero value sets none.
	Limits Limits
	// Notify are the account's alert targets: every plan's alerts go to
	// them, as well as to the plan's own.
	Notify []NotifyTarget
}

// configDoc is the YAML shape of the account file, as planDoc is a plan's.
type configDoc struct {
	Version int               `yaml:"version" jsonschema:"required" jsonschema_description:"The account file format version: 1."`
	Limits  *accountLimitsDoc `yaml:"limits" validate:"-" jsonschema_description:"The account's limits: the keys and meanings of a plan's limits, counted over every bet of every plan that shares the state (the same state directory). A bet is created only when both its plan's limits and these allow it."`
	Notify  []notifyDoc       `yaml:"notify" jsonschema_description:"Where every plan's alerts go, as well as to each plan's own notify targets: a list of {url, on}, as in a plan."`
}

func init() { structFields(reflect.TypeFor[configDoc]()) }

// LoadConfig reads and checks an account file.
func LoadConfig(path string) (*Config, []byte, Diagnostics) {
	return loadFile(path, "the account file", ParseConfig)
}

// ParseConfig decodes and checks an account file as strictly as a plan:
// unknown keys, wrong types and invalid limits are errors at their
// position. The config is nil when the diagnostics hold an error.
func ParseConfig(filename string, data []byte) (*Config, Diagnostics) {
	if d := tooLarge(filename, data, "the account file"); d != nil {
		return nil, d
	}
	p := &parser{
		d:   decoder{filename: filename, pos: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}},
		src: data,
	}
	sum := sha256.Sum256(data)
	c := &Config{Filename: filename, Hash: "sha256:" + hex.EncodeToString(sum[:])}
	var doc configDoc
	if p.decodeRoot(reflect.ValueOf(&doc).Elem(), "account file") {
		switch {
		case p.d.pos["version"] == nil:
			p.d.errorf(p.rootNode(), "the account file is missing version: add version: 1 at the top")
		case doc.Version != 1:
			p.d.errorf(p.at("version"), "version %d is not supported: this betplan reads version 1", doc.Version)
		}
		c.Version = doc.Version
		if doc.Limits == nil {
			p.d.warnf(p.rootNode(), "the account file has no limits: add limits (max_total_stake, max_loss) to bound what every plan together may spend")
		} else if l, ok := p.readLimits(&doc.Limits.limitsDoc); ok {
			c.Limits = l
		}
		c.Notify = p.readNotify(doc.Notify)
	}
	diags := p.d.result()
	if diags.HasErrors() {
		return nil, diags
	}
	return c, diags
}

// ConfigEnv names the account file when --config does not.
const ConfigEnv = "BETPLAN_CONFIG"

// FindConfig is the account file of the plan at planPath: betplan.yaml in
// the plan's directory or the nearest one above it, up to the repository
// root (the first directory holding .git). Outside a repository only the
// plan's own directory is looked in. "" when there is none.
func FindConfig(planPath string) (string, error) {
	dir, err := filepath.Abs(filepath.Dir(planPath))
	if err != nil {
		return "", err
	}
	var dirs []string
	inRepo := false
	for d := dir; ; {
		dirs = append(dirs, d)
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			inRepo = true
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if !inRepo {
		dirs = dirs[:1]
	}
	for _, d := range dirs {
		path := filepath.Join(d, ConfigFileName)
		_, err := os.Stat(path)
		switch {
		case err == nil:
			return relToWorkDir(path), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("look for the account file: %w", err)
		}
	}
	return "", nil
}

// relToWorkDir names path relative to the working directory when it is
// under it, as people wrote the plan's path, for messages.
func relToWorkDir(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return rel
}

// DiffConfig compares two checked account files. A loosened limit, one
// raised or removed or counted over a shorter period, is a warning: it
// lets every plan of the account together spend more, the line a reviewer
// most needs to see.
func DiffConfig(old, new *Config) *PlanDiff {
	d := &PlanDiff{Old: old.Filename, New: new.Filename, Account: true, Plan: []Change{}, Bets: []BetChange{}, Tips: []BetChange{}, Warnings: []string{}}
	if old.Version != new.Version {
		d.Plan = append(d.Plan, Change{Field: "version", Old: fmt.Sprint(old.Version), New: fmt.Sprint(new.Version)})
	}
	d.Plan = append(d.Plan, limitChanges(old.Limits, new.Limits)...)
	d.Warnings = append(d.Warnings, loosenedLimits(old.Limits, new.Limits, accountLimits)...)
	d.Before.Limits, d.After.Limits = []LimitCheck{}, []LimitCheck{}
	return d
}

// periodSpan orders the periods by how much one period holds: the total
// limits of a shorter one allow more over time.
var periodSpan = map[Period]int{PeriodDay: 1, PeriodWeek: 2, PeriodPlan: 3}

// limitScope is whose limits loosenedLimits compares, in its words.
type limitScope struct {
	kind  string // "account" or "plan"
	every string // what a raised limit bounds
	over  string // what a total limit counts over
}

var (
	accountLimits = limitScope{"account", "for every plan of the account together", "across every plan of the account"}
	planLimits    = limitScope{"plan", "for this plan", "for this plan"}
)

// loosenedLimits says, limit by limit, how the new limits allow more than
// the old: a limit removed or raised, or a shorter period.
func loosenedLimits(o, n Limits, scope limitScope) []string {
	var out []string
	if o.Period != n.Period && periodSpan[n.Period] < periodSpan[o.Period] && o.Any() {
		out = append(out, fmt.Sprintf("%s limits loosened: limits.period %s → %s, so the total limits allow their amounts again every %s %s", scope.kind, o.Period, n.Period, n.Period, scope.over))
	}
	for _, k := range limit.All() {
		ov, set := o.Set.Get(k)
		if !set {
			continue
		}
		name := "limits." + k.Key
		was := limitText(o.Set, k)
		if k.Unit == limit.Dollars {
			was = "$" + was
		}
		nv, still := n.Set.Get(k)
		if !still {
			out = append(out, fmt.Sprintf("%s limit loosened: %s removed (was %s): nothing bounds it %s any more", scope.kind, name, was, scope.over))
			continue
		}
		if nv.Count > ov.Count || nv.Dollars > ov.Dollars+1e-9 {
			now := limitText(n.Set, k)
			if k.Unit == limit.Dollars {
				now = "$" + now
			}
			out = append(out, fmt.Sprintf("%s limit loosened: %s %s → %s, %s", scope.kind, name, was, now, scope.every))
		}
	}
	return out
}
