package plan

import (
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// SchemaID is the $id of the plan JSON Schema.
const SchemaID = "https://github.com/betplan/betplan/schema/plan.schema.json"

// JSONSchema is the plan's JSON Schema, generated from the YAML-shaped
// types, for editors (yaml-language-server) and CI. The validator is
// stricter: it also checks expressions, staking rules and limits.
func JSONSchema() ([]byte, error) {
	return schemaJSON(yamlReflector(), &planDoc{}, SchemaID, "betplan plan",
		"A declarative bet plan run by betplan against the Betting Automation Service.",
		func(s *jsonschema.Schema) {
			if def, ok := s.Definitions["betDoc"]; ok {
				if p, ok := def.Properties.Get("options"); ok {
					*p = *optionsSchema()
				}
			}
			eventRules(s)
		})
}

// yamlReflector reflects the YAML-shaped documents (a plan, an account
// file): their keys are the yaml tags.
func yamlReflector() *jsonschema.Reflector {
	return &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true,
	}
}

// schemaJSON is the JSON Schema r reflects from v, with its $id, title and
// description, after extend (when not nil) adds what reflection cannot
// say; indented, with a final newline, as the schema files are written.
func schemaJSON(r *jsonschema.Reflector, v any, id, title, description string, extend func(*jsonschema.Schema)) ([]byte, error) {
	s := r.Reflect(v)
	s.ID = jsonschema.ID(id)
	s.Title = title
	s.Description = description
	if extend != nil {
		extend(s)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func optionsSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{
		Type:                 "object",
		Description:          "Notification options of the service, e.g. {check_odds: true, odds: 2.5}.",
		Properties:           jsonschema.NewProperties(),
		AdditionalProperties: jsonschema.FalseSchema,
	}
	for _, name := range sortedKeys(options) {
		o := options[name]
		p := &jsonschema.Schema{Description: o.help}
		switch o.kind {
		case optBool:
			p.Type = "boolean"
		case optNumber:
			p.Type = "number"
		case optInt:
			p.Type = "integer"
		case optString:
			p.Type = "string"
		}
		s.Properties.Set(name, p)
	}
	return s
}

func (raceField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "A key of races, or an inline race {venue, code, event_number}.",
		OneOf: []*jsonschema.Schema{
			{Type: "string", Description: "A key of races."},
			{Ref: "#/$defs/raceDoc"},
		},
	}
}

func (exprField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "An expression giving true or false; see the package documentation for the names it can use.",
		OneOf:       []*jsonschema.Schema{{Type: "string", MinLength: uint64p(1)}, {Type: "boolean"}},
	}
}

func (amountField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Description: "Dollars: a positive number with at most two decimals, or an expression giving a number.",
		OneOf: []*jsonschema.Schema{
			{Type: "number", ExclusiveMinimum: json.Number("0"), MultipleOf: json.Number("0.01")},
			{Type: "string", MinLength: uint64p(1)},
		},
	}
}

func (durationField) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:        "string",
		Pattern:     `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`,
		Description: "A Go duration such as 30s, 1m30s or 3h.",
	}
}

func uint64p(v uint64) *uint64 { return &v }

// JSONSchemaExtend adds what struct tags cannot say: a selection is a
// string (its racing pattern, which has commas, is in racingBet: see
// eventRules).
func (betDoc) JSONSchemaExtend(s *jsonschema.Schema) {
	if p, ok := s.Properties.Get("selection"); ok {
		p.Type = "string"
	}
}

// ConfigSchemaID is the $id of the account file's JSON Schema.
const ConfigSchemaID = "https://github.com/betplan/betplan/schema/config.schema.json"

// ConfigJSONSchema is the JSON Schema of the account file (betplan.yaml),
// generated from its YAML shape as the plan's is.
func ConfigJSONSchema() ([]byte, error) {
	return schemaJSON(yamlReflector(), &configDoc{}, ConfigSchemaID, "betplan account file",
		"betplan.yaml: the limits every plan of the account is held to together, beside each plan's own.", nil)
}
