package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

var _ state.EveryReader = (*Store)(nil)

// ReadEvery reads the journal of every plan in the schema, of every
// service and machine, in one read-only statement that takes no lock,
// streamed: each plan's journal is handed on once its rows are read. A
// database where betplan never ran has none. A record over the bound
// marks its journal unread and the others are read still. Given ops, only
// the records of those ops are selected, and those whose op is not a
// string, and any over the bound (so a journal that would not read still
// does not).
func (s *Store) ReadEvery(ctx context.Context, ops []string, each func(state.StoredJournal) error) error {
	return s.readOnly(ctx, func(conn *pgx.Conn) error {
		query := "SELECT p.id, p.name, p.base_url, j.serial, " + strings.Replace(boundedEntry, "$2", "$1", 1) +
			" FROM " + s.table("plans") + " p JOIN " + s.table("journal") + " j ON j.plan_id = p.id"
		args := []any{maxEntryText}
		if ops != nil {
			query += " WHERE jsonb_typeof(j.entry->'op') IS DISTINCT FROM 'string' OR j.entry->>'op' = ANY($2) OR octet_length(j.entry::text) > $1"
			args = append(args, ops)
		}
		rows, err := conn.Query(ctx, query+" ORDER BY p.name, p.id, j.serial", args...)
		if err != nil {
			return s.unavailableOr(err)
		}
		var j *state.StoredJournal
		var id, last, serial int64
		var name, base string
		var entry []byte
		var eachErr error
		_, err = pgx.ForEachRow(rows, []any{&id, &name, &base, &serial, &entry}, func() error {
			if id != last || j == nil {
				if j != nil {
					if eachErr = each(*j); eachErr != nil {
						return eachErr
					}
				}
				last = id
				j = &state.StoredJournal{Name: name, Where: fmt.Sprintf("%s: plan %s on %s", s, name, base)}
			}
			switch {
			case j.Err != nil:
			case entry == nil:
				j.Records, j.Err = nil, s.tooLong(serial)
			default:
				j.Records = append(j.Records, entry)
			}
			entry = nil
			return nil
		})
		if eachErr != nil {
			return eachErr
		}
		if err != nil {
			return s.unavailableOr(err)
		}
		if j != nil {
			return each(*j)
		}
		return nil
	})
}
