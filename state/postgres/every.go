package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

var _ state.EveryReader = (*Store)(nil)

// ReadEvery reads the journal of every plan in the schema, of every
// service and machine, in one read-only statement that takes no lock. A
// database where betplan never ran has none. A record over the bound
// marks its journal unread and the others are read still.
func (s *Store) ReadEvery(ctx context.Context) ([]state.StoredJournal, error) {
	conn, err := s.connect(ctx, true)
	if errors.Is(err, errNoSchema) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closeConn(conn)
	rows, err := conn.Query(ctx, "SELECT p.id, p.name, p.base_url, j.serial, "+strings.Replace(boundedEntry, "$2", "$1", 1)+
		" FROM "+s.table("plans")+" p JOIN "+s.table("journal")+" j ON j.plan_id = p.id ORDER BY p.name, p.id, j.serial", maxEntryText)
	if err != nil {
		return nil, s.unavailableOr(err)
	}
	var out []state.StoredJournal
	var id, last, serial int64
	var name, base string
	var entry []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &name, &base, &serial, &entry}, func() error {
		if id != last || len(out) == 0 {
			last = id
			out = append(out, state.StoredJournal{Name: name, Where: fmt.Sprintf("%s: plan %s on %s", s, name, base)})
		}
		j := &out[len(out)-1]
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
	if err != nil {
		return nil, s.unavailableOr(err)
	}
	return out, nil
}
