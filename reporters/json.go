package reporters

import (
	"bufio"
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
//
// Bets are encoded one at a time into the output, so a plan of 10,000 bets
// is never indented as one document in memory.
func WriteJSON(w io.Writer, r *engine.Result) error {
	doc := NewDocument(r)
	bets := doc.Bets
	doc.Bets = nil
	head, err := encodeJSON(doc, "")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	// "bets" is a top-level key written as null above; the bets go there.
	const placeholder = "\n  \"bets\": null,\n"
	at := bytes.Index(head, []byte(placeholder))
	if at < 0 {
		return fmt.Errorf("encode report: no place for the bets")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head[:at])
	if len(bets) == 0 {
		bw.WriteString("\n  \"bets\": [],\n")
	} else {
		bw.WriteString("\n  \"bets\": [\n    ")
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("    ", "  ")
		for i := range bets {
			buf.Reset()
			if err := enc.Encode(&bets[i]); err != nil {
				return fmt.Errorf("encode report: bet %s: %w", bets[i].ID, err)
			}
			bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
			if i < len(bets)-1 {
				bw.WriteString(",\n    ")
			}
		}
		bw.WriteString("\n  ],\n")
	}
	bw.Write(head[at+len(placeholder):])
	return bw.Flush()
}

func encodeJSON(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// schemaID is where the published schema lives in the repository.
const schemaID = "https://github.com/betplan/betplan/schema/report.schema.json"

// JSONSchema returns the JSON Schema of report.json, generated from Document,
// indented, with a trailing newline. schema/report.schema.json is this output.
func JSONSchema() ([]byte, error) {
	// Additional properties are allowed: fields may be added within a
	// schema_version, and older consumers must keep validating.
	r := &jsonschema.Reflector{ExpandedStruct: true, AllowAdditionalProperties: true}
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
