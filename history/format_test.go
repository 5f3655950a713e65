package history_test

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/betplan/betplan/history"
)

// A text cell a spreadsheet would take for a formula starts with a ';
// any other text, and every number betplan writes, is as it was.
func TestCSVTextIsNeverAFormula(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"equals", "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		{"plus", "+1+2", "'+1+2"},
		{"minus", "-3+4", "'-3+4"},
		{"at", "@SUM(1+1)", "'@SUM(1+1)"},
		{"tab", "\tTAB", "'\tTAB"},
		{"carriage return", "\rCR", "'\rCR"},
		{"after spaces", "  =1+1", "'  =1+1"},
		{"after a line break", "\n=1+1", "'\n=1+1"},
		{"a number as text", "-10.00", "'-10.00"},
		{"plain", "Flemington", "Flemington"},
		{"inside", "Sale=Bairnsdale", "Sale=Bairnsdale"},
		{"a quote already", "'=1", "'=1"},
		{"empty", "", ""},
		{"spaces only", "  ", "  "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := history.Summary{By: []string{"venue"}, Rows: []history.Row{{Keys: map[string]string{"venue": tt.in},
				Measures: history.Measures{Bets: 1, Settled: 1, Lost: 1, Accepted: 1000, Profit: -1000}}}}
			var out bytes.Buffer
			require.NoError(t, history.WriteCSV(&out, &s))
			rows, err := csv.NewReader(&out).ReadAll() // the header's field count on every row
			require.NoError(t, err)
			require.Len(t, rows, 2)
			assert.Equal(t, tt.want, rows[1][0])
			assert.Equal(t, []string{"1", "1", "0", "1", "0", "0", "10.00", "-10.00"}, rows[1][1:9], "numbers stay numbers")
		})
	}
}
