package history

import _ "embed"

// jsonSchema is the JSON contract of history --format json: `betplan
// schema history` prints it and `make schema` writes it to
// schema/history.schema.json.
//
//go:embed history.schema.json
var jsonSchema []byte

// JSONSchema is the JSON Schema of history --format json.
func JSONSchema() ([]byte, error) { return append([]byte(nil), jsonSchema...), nil }
