package plan_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/betplan/betplan/internal/golden"
	"github.com/betplan/betplan/plan"
)

const schemaPath = "../schema/plan.schema.json"

func TestSchemaIsUpToDate(t *testing.T) {
	got, err := plan.JSONSchema()
	must(t, err)
	golden.Check(t, schemaPath, got) // `make schema` writes the same file
}

func examples(t testing.TB) []string {
	files, err := filepath.Glob("../examples/*.yaml")
	must(t, err)
	check(t, len(files) >= 5, "want at least 5 examples, got %d", len(files))
	return files
}

func TestExamplesAreValidAndClean(t *testing.T) {
	for _, f := range examples(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, diags := plan.Load(f)
			check(t, len(diags) == 0, "want no diagnostics:\n%s", diags.Error())
			check(t, p != nil, "want a plan")
			check(t, p != nil && len(p.Bets)+len(p.Tips) > 0, "want bets or tips")
			src, err := os.ReadFile(f)
			must(t, err)
			check(t, strings.HasPrefix(string(src), "# yaml-language-server: $schema=../schema/plan.schema.json\n"), "the modeline must be the first line")
		})
	}
}

func TestExamplesMatchTheSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaPath)
	must(t, err)
	for _, f := range examples(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			must(t, err)
			var v any
			must(t, yaml.Unmarshal(src, &v))
			// Round-trip through JSON to get the values the validator expects.
			b, err := json.Marshal(v)
			must(t, err)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			must(t, err)
			if err := sch.Validate(inst); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSchemaRejectsWhatTheValidatorRejects(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaPath)
	must(t, err)
	// The schema must accept a tips-only plan, or the rows below prove nothing.
	ok, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"version": 1, "name": "x", "prealert": {"before": "20m"}, "tips": [{"id": "a", "race": "r", "market": "Fixed Win", "selection": "1", "amount_units": 1, "odds": 3, "max_odds": 4, "bookies": "41&42", "confidence": "High"}]}`))
	must(t, err)
	must(t, sch.Validate(ok))
	for _, doc := range []string{
		`{"version": 1, "name": "x", "bets": [{"id": "a", "stak": 1}]}`,
		`{"version": 1, "name": "Bad Name", "bets": [{"id": "a"}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "market": "Fixed Wn"}]}`,
		`{"version": 1, "name": "x", "bets": [{"id": "a", "options": {"oods": 2}}]}`,
		`{"version": 1, "name": "x"}`,
		`{"version": 1, "name": "x", "tips": []}`,
		`{"version": 1, "name": "x", "tips": [{"id": "a", "market": "Fixed Win", "selection": "1", "amount_units": 1, "odds": 3, "max_odds": 4, "bookies": "41", "confidence": "high"}]}`,
		`{"version": 1, "name": "x", "tips": [{"id": "a", "market": "Fixed Win", "selection": "1", "amount_units": 1, "odds": 3, "max_odds": 4, "bookies": "TAB"}]}`,
		`{"version": 1, "name": "x", "tips": [{"id": "a", "market": "Fixed Win", "selection": "1", "amount_units": 1, "odds": 3, "bookies": "41"}]}`,
		`{"version": 1, "name": "x", "prealert": {}, "tips": [{"id": "a", "market": "Fixed Win", "selection": "1", "amount_units": 1, "odds": 3, "max_odds": 4, "bookies": "41"}]}`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		must(t, err)
		check(t, sch.Validate(inst) != nil, "the schema accepts %s", doc)
	}
}

// TestGolden checks the text diagnostics of every plan under
// testdata/plans/invalid (each has errors) and testdata/plans/warnings
// (each has warnings and no errors) against NAME.golden.
func TestGolden(t *testing.T) {
	for _, dir := range []string{"invalid", "warnings"} {
		files, err := filepath.Glob(filepath.Join("../testdata/plans", dir, "*.yaml"))
		must(t, err)
		check(t, len(files) > 0, "no plans in %s", dir)
		for _, f := range files {
			t.Run(dir+"/"+filepath.Base(f), func(t *testing.T) {
				src, err := os.ReadFile(f)
				must(t, err)
				name := "testdata/plans/" + dir + "/" + filepath.Base(f)
				p, diags := plan.Parse(name, src)
				if dir == "invalid" {
					check(t, p == nil, "want no plan")
					check(t, diags.HasErrors(), "want errors")
				} else {
					check(t, p != nil, "want a plan")
					check(t, !diags.HasErrors(), "want no errors:\n%s", diags.Error())
					check(t, diags.Warnings() > 0, "want warnings")
				}
				var buf bytes.Buffer
				must(t, plan.WriteText(&buf, diags, map[string][]byte{name: src}))
				golden.Check(t, strings.TrimSuffix(f, ".yaml")+".golden", buf.Bytes())
			})
		}
	}
}

func TestHugeFileIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	data := bytes.Repeat([]byte("# padding padding padding padding padding padding padding\n"), (plan.MaxFileSize/58)+10)
	must(t, os.WriteFile(path, data, 0o644))
	p, diags := plan.Load(path)
	check(t, p == nil, "want no plan")
	equal(t, path+": cannot read the plan: larger than 4 MiB: refusing to read it (is this the right file?)", diags.Error())
}

func TestLoadMissingFile(t *testing.T) {
	p, diags := plan.Load("no/such/plan.yaml")
	check(t, p == nil, "want no plan")
	equal(t, "no/such/plan.yaml: cannot read the plan: no such file or directory", diags.Error())
}
