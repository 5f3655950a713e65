package local

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	`{"serial":1,"lineage":"ab","time":"2026-11-25T03:00:00Z","op":"init"}`,
	`{"op": "outcome", "outcome": {"sessions": [{"odds": 2.1, "profit": -10.01}], "units": null, "ok": true, "no": false}}`,
	` [1, -0, 0.5, 1e5, 1E+5, -2.5e-3, "a\"b\\c\/d\b\f\n\r\t\u00e9\uD83D", {}, [], [[]], {"a":{}}] `,
	`"x"`, `1`, `null`, `true`, `false`, ``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `{"a":1}{`,
	`01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `tru`, `nul`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\tb\"", "\"a\x01\"",
	`{"a":1}x`, `{"a":[1,2}`, `[1:2]`, `{"a":1,"b":}`, "\"\xff\xfe\"", `{"serial":2,` + `{"op":"placed"}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 9999) + "{}" + strings.Repeat("]", 9999),
	strings.Repeat("[", 10000) + "{}" + strings.Repeat("]", 10000),
}

func TestValidJSONIsJSONValid(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.80q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}
