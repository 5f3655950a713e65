package plan

import (
	"io"
	"path/filepath"

	"github.com/owenrumney/go-sarif/v2/sarif"
)

// SARIF's informationUri for betplan's rules.
const rulesURI = "https://github.com/betplan/betplan#validate"

// WriteSARIF writes the diagnostics as a SARIF 2.1.0 log for code
// scanning (GitHub's upload-sarif): one run of the tool "betplan", every
// rule with its help, and each diagnostic as a result with its rule id,
// level, message and region. Paths are written relative and with forward
// slashes, as the repository names them.
func WriteSARIF(w io.Writer, diags Diagnostics, version string) error {
	report, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("betplan", rulesURI)
	run.Tool.Driver.WithVersion(version)
	for _, r := range Rules {
		run.AddRule(r.ID).
			WithName(r.Name).
			WithShortDescription(sarif.NewMultiformatMessageString(r.Name)).
			WithFullDescription(sarif.NewMultiformatMessageString(r.Help)).
			WithHelp(sarif.NewMultiformatMessageString(r.Help))
	}
	for _, d := range diags {
		uri := filepath.ToSlash(d.Filename)
		run.AddDistinctArtifact(uri)
		level := "error"
		if d.Severity == SeverityWarning {
			level = "warning"
		}
		msg := d.Summary
		if d.Detail != "" {
			msg += " (" + d.Detail + ")"
		}
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(uri))
		if d.Line > 0 {
			region := sarif.NewRegion().WithStartLine(d.Line)
			if d.Column > 0 {
				region.WithStartColumn(d.Column)
			}
			if d.EndLine >= d.Line {
				region.WithEndLine(d.EndLine)
				if d.EndColumn > 0 && (d.EndLine > d.Line || d.EndColumn > d.Column) {
					region.WithEndColumn(d.EndColumn)
				}
			}
			loc.WithRegion(region)
		}
		run.CreateResultForRule(d.RuleOf().ID).
			WithLevel(level).
			WithMessage(sarif.NewTextMessage(msg)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	report.AddRun(run)
	return report.PrettyWrite(w)
}
