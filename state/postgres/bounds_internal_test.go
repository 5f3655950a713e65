package postgres

import (
	"strconv"
	"strings"
	"testing"
)

// Schema version 4 spells the bound of a record read back, and the size
// under which an entry is not measured, as literals (a migration never
// changes once deployed): they are the readers' own.
func TestVersion4BoundsAreTheReaders(t *testing.T) {
	bound := "pg_column_size(j.entry) > " + smallEntry + " AND octet_length(j.entry::text) > " + strconv.Itoa(maxEntryText)
	if !strings.Contains(historyEntry, bound) {
		t.Errorf("historyEntry does not bound entries as the readers do (%s):\n%s", bound, historyEntry)
	}
	if n, all := strings.Count(migration4, bound), strings.Count(migration4, "octet_length("); n != all || n == 0 {
		t.Errorf("migration4 measures entries %d times, %d of them as the readers do (%s)", all, n, bound)
	}
}
