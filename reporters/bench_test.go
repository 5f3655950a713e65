package reporters_test

import (
	"io"
	"testing"

	"github.com/betplan/betplan/reporters"
)

func BenchmarkWriteJSON10000(b *testing.B) {
	r := bigResult(10000)
	b.ReportAllocs()
	for b.Loop() {
		if err := reporters.WriteJSON(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteMarkdown10000(b *testing.B) {
	r := bigResult(10000)
	b.ReportAllocs()
	for b.Loop() {
		if err := reporters.WriteMarkdown(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
