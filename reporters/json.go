package reporters

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/betplan/betplan/engine"
)

// WriteJSON writes report.json: the Document for r, indented by two spaces,
// with a trailing newline. <, > and & stay as they are, so people can read
// reasons and errors in the file.
func WriteJSON(w io.Writer, r *engine.Result) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(NewDocument(r)); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// schemaID is where the published schema lives in the repository.
const schemaID = "https://github.com/betplan/betplan/schema/report.schema.json"

// JSONSchema returns the JSON Schema of report.json, generated from Document,
// indented, with a trailing newline. schema/report.schema.json is this output.
func JSONSchema() ([]byte, error) {
	r := &jsonschema.Reflector{ExpandedStruct: true}
	s := r.ReflectFromType(reflect.TypeFor[Document]())
	s.ID = schemaID
	s.Title = "betplan report"
	s.Description = fmt.Sprintf("report.json as written by betplan run, status and plan (schema_version %d).", SchemaVersion)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report schema: %w", err)
	}
	var buf bytes.Buffer
	buf.Write(b)
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
