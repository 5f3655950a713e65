package cli

import (
	"context"

	"github.com/betplan/betplan/history"
	"github.com/betplan/betplan/plan"
	"github.com/betplan/betplan/reporters"
)

func schemaCommand() *command {
	return &command{
		name:    "schema",
		args:    "[plan|config|report|diff|history|explain]",
		summary: "print the JSON Schema of plan files (or of the account file betplan.yaml, of report.json, of diff --format json, of history --format json, or of explain --format json)",
		exits: []exitDoc{
			{exitOK, "the schema was printed"},
			{exitUsage, "usage error"},
		},
		examples: `  betplan schema plan > plan.schema.json
  betplan schema config > config.schema.json
  betplan schema report
  betplan schema diff
  betplan schema history
  betplan schema explain
`,
		setup: bindTo(nil, printSchema),
	}
}

// printSchema is `betplan schema [plan|config|report|diff|history|explain]`.
func printSchema(_ context.Context, sys *sysIO, _ *noFlags, args []string) error {
	which := "plan"
	if len(args) > 1 {
		return usagef("schema takes at most one argument: plan, config, report, diff, history or explain")
	}
	if len(args) == 1 {
		which = args[0]
	}
	var b []byte
	var err error
	switch which {
	case "plan":
		b, err = plan.JSONSchema()
	case "config":
		b, err = plan.ConfigJSONSchema()
	case "report":
		b, err = reporters.JSONSchema()
	case "diff":
		b, err = plan.DiffJSONSchema()
	case "history":
		b, err = history.JSONSchema()
	case "explain":
		b, err = reporters.ExplainJSONSchema()
	default:
		return usagef("unknown schema %q: plan, config, report, diff, history or explain", which)
	}
	if err != nil {
		return err
	}
	_, err = sys.Stdout.Write(b)
	return err
}
