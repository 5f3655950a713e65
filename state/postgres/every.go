package postgres

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

var _ state.EveryReader = (*Store)(nil)

// everyEntry selects a journal row's entry as text when it is within
// maxEntryText, else NULL: a longer one is never sent whole. One stored in
// no more than smallEntry bytes is within it, so it is made text once, not
// a second time to be measured: making jsonb text is most of the server's
// work in a read of every journal.
const everyEntry = "CASE WHEN pg_column_size(j.entry) <= " + smallEntry + " OR octet_length(j.entry::text) <= $1 THEN j.entry::text END"

// smallEntry is a size, as stored, under which an entry cannot be over
// the bound as text, so the records passed over are not made text to be
// measured (most of the server's work otherwise). As text, jsonb is at
// most about six times its own size (a control character in a string is
// six as an escape), and stored it is at most about 255 times smaller
// again (lz4's best; pglz's is below 100): an entry over the bound takes
// more than 1,200 bytes whichever way it is kept. In bytes, written as a
// statement takes it.
const smallEntry = "1024"

// ReadEvery reads the journal of every plan in the schema, of every
// service and machine, in one read-only statement that takes no lock,
// streamed: each journal's records are handed on as its rows arrive, one
// journal after the other, and none is held once handed on. A database
// where betplan never ran has none. A record over the bound marks its
// journal unread and the others are read still. Given ops, only the
// records of those ops are selected, and those whose op is not a string,
// and any over the bound (so a journal that would not read still does
// not).
func (s *Store) ReadEvery(ctx context.Context, ops []string, each func(state.StoredJournal) error) error {
	return s.readOnly(ctx, func(conn *pgx.Conn) error {
		query := "SELECT p.id, p.name, p.base_url, j.serial, " + everyEntry +
			" FROM " + s.table("plans") + " p JOIN " + s.table("journal") + " j ON j.plan_id = p.id"
		args := []any{maxEntryText}
		if ops != nil {
			query += " WHERE jsonb_typeof(j.entry->'op') IS DISTINCT FROM 'string' OR j.entry->>'op' = ANY($2) OR pg_column_size(j.entry) > " + smallEntry + " AND octet_length(j.entry::text) > $1"
			args = append(args, ops)
		}
		// JIT compiling the statement took the server a tenth of a second
		// of a read of 100,000 bets, and won nothing back.
		if _, err := conn.Exec(ctx, "SET jit = off"); err != nil {
			return s.unavailable(err)
		}
		rows, err := conn.Query(ctx, query+" ORDER BY p.name, p.id, j.serial", args...)
		if err != nil {
			return s.unavailableOr(err)
		}
		defer rows.Close()
		var id, serial int64
		// next moves to the next row; the entry is the row's own bytes,
		// valid until the next call, nil over the bound.
		var entry []byte
		next := func() (bool, error) {
			if !rows.Next() {
				return false, rows.Err()
			}
			raw := rows.RawValues()
			// The plan's id and the serial (int8, sent in binary as pgx
			// asks) are read from the row's bytes: Scan costs an
			// allocation a row.
			if fd := rows.FieldDescriptions(); fd[0].Format == pgx.BinaryFormatCode && fd[3].Format == pgx.BinaryFormatCode && len(raw[0]) == 8 && len(raw[3]) == 8 {
				id, serial = int64(binary.BigEndian.Uint64(raw[0])), int64(binary.BigEndian.Uint64(raw[3]))
			} else if err := rows.Scan(&id, nil, nil, &serial, nil); err != nil {
				return false, err
			}
			entry = raw[4]
			return true, nil
		}
		more, err := next()
		for seq := 0; more && err == nil; seq++ {
			plan := id
			raw := rows.RawValues()
			name, base := string(raw[1]), string(raw[2])
			// rest reads what is left of the plan's rows, handing each
			// to record (nil: passing them over).
			rest := func(record func([]byte) error) error {
				var bad error
				for more && err == nil && id == plan {
					switch {
					case bad != nil || record == nil:
					case entry == nil:
						bad = s.tooLong(serial)
					default:
						if bad = record(entry); bad != nil {
							record = nil
						}
					}
					more, err = next()
				}
				if err != nil {
					return s.unavailable(err)
				}
				return bad
			}
			read := func(record func([]byte) error) error { return rest(record) }
			if eachErr := each(state.StoredJournal{Seq: seq, Name: name, Where: fmt.Sprintf("%s: plan %s on %s", s, name, base), Read: read}); eachErr != nil {
				return eachErr
			}
			_ = rest(nil) // rows each did not read, or did not read to the end
		}
		if err != nil {
			return s.unavailable(err)
		}
		return nil
	})
}
