package apiclient

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
)

func TestCleanLine(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"Main Sportsbet — café", "Main Sportsbet — café"},
		{"a\x1b]0;pwned\x07b", "ab"},
		{"a\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"},
		{"a\x1b[2Jb\x1b[31;1mc", "abc"},
		{"a\u009b2Jb\u009d0;t\u009cc", "abc"},
		{"a\x1bcb\x1b(Bc", "abc"},
		{"line\r\nnext\tcol", "line  next col"},
		{"nul\x00bell\x07del\x7f", "nulbelldel"},
		{"unterminated \x1b]0;title", "unterminated "},
		{"bad \xff utf8", "bad \uFFFD utf8"},
	} {
		if got := cleanLine(tt.in); got != tt.want {
			t.Errorf("cleanLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCleanBody(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":"plain","n":1}`, `{"a":"plain","n":1}`},
		{`{"name":"Main \u001b]0;pwned\u0007Sportsbet","x":["\u001b[2Jy"]}`, `{"name":"Main Sportsbet","x":["y"]}`},
		{`{"k\u0007ey":"a\nb","q":"say \"hi\" <b>"}`, `{"key":"a b","q":"say \"hi\" <b>"}`},
		{`{"é":"\u00e9"}`, `{"é":"\u00e9"}`},
		{"not json \x1b[2J here", "not json  here"},
	} {
		if got := string(cleanBody([]byte(tt.in))); got != tt.want {
			t.Errorf("cleanBody(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzCleanBody: a JSON body stays JSON, no string in it holds a control
// character, and cleaning is idempotent.
func FuzzCleanBody(f *testing.F) {
	for _, s := range []string{`{"a":"\u001b]0;x\u0007"}`, `["\u009b31m", 1, null]`, "\x1b[2J", `"\n"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := cleanBody(b)
		if again := cleanBody(out); string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", b, out, again)
		}
		if !json.Valid(b) {
			if strings.IndexFunc(string(out), unicode.IsControl) >= 0 {
				t.Fatalf("control character left in %q", out)
			}
			return
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("cleanBody(%q) = %q is not JSON: %v", b, out, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				if strings.IndexFunc(v, unicode.IsControl) >= 0 {
					t.Fatalf("control character left in %q (from %q)", v, b)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					walk(k)
					walk(x)
				}
			}
		}
		walk(v)
	})
}

// plainASCII, which lets a clean body skip cleanBody's work, agrees with
// the byte-by-byte rule for every byte at every place of a word and of
// the tail.
func TestPlainASCII(t *testing.T) {
	for n := 1; n <= 19; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				b := bytes.Repeat([]byte("a"), n)
				b[at] = byte(c)
				want := c >= 0x20 && c <= 0x7e && c != '\\'
				if got := plainASCII(b); got != want {
					t.Fatalf("plainASCII(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}
