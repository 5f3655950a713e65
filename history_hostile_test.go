package main

import (
	"encoding/csv"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdCSVFields is `csvfields FILE N`: FILE parses as CSV, with N fields
// on every row, the header's included.
func cmdCSVFields(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: csvfields FILE N")
	}
	want, err := strconv.Atoi(args[1])
	ts.Check(err)
	r := csv.NewReader(strings.NewReader(ts.ReadFile(args[0])))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		ts.Fatalf("csvfields: %s does not parse as CSV: %v", args[0], err)
	}
	if len(rows) < 2 {
		ts.Fatalf("csvfields: %s has %d rows, want a header and rows", args[0], len(rows))
	}
	for i, row := range rows {
		if len(row) != want {
			ts.Fatalf("csvfields: row %d of %s has %d fields, want %d: %q", i+1, args[0], len(row), want, row)
		}
	}
}
