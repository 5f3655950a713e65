package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

var _ state.OutcomeCache = (*Store)(nil)

// outcomesVersion is the schema version that made the outcome cache's
// table.
const outcomesVersion = 3

// ReadOutcomes reads the outcome cache's table on a connection that
// writes nothing: a schema made before the table (or none) has none kept.
func (s *Store) ReadOutcomes(ctx context.Context, each func(service, label string, outcome []byte) error) error {
	return s.readOnly(ctx, func(conn *pgx.Conn) error {
		v, err := s.version(ctx, conn)
		if err != nil {
			return s.unavailable(err)
		}
		if v < outcomesVersion {
			return nil
		}
		service := "''" // before version 4, the cache is keyed by label alone
		if v >= historyEntriesVersion {
			service = "service"
		}
		rows, err := conn.Query(ctx, "SELECT "+service+", label, outcome::text FROM "+s.table("history_outcomes")+" ORDER BY kept_at, label")
		if err != nil {
			return s.unavailable(err)
		}
		var label string
		var outcome []byte
		var eachErr error
		_, err = pgx.ForEachRow(rows, []any{&service, &label, &outcome}, func() error {
			eachErr = each(service, label, outcome)
			return eachErr
		})
		if eachErr != nil {
			return eachErr
		}
		if err != nil {
			return s.unavailable(err)
		}
		return nil
	})
}

// KeepOutcomes writes the outcomes into the outcome cache's table in one
// statement, bringing the schema up to date first (the table is version
// 3's, keyed by service and label from version 4).
func (s *Store) KeepOutcomes(ctx context.Context, outcomes []state.KeptOutcome) error {
	if len(outcomes) == 0 {
		return nil
	}
	// One row a service and label, the last given: a statement may not
	// change a row twice.
	type key struct{ service, label string }
	at := map[key]int{}
	var services, labels, bodies []string
	for _, o := range outcomes {
		if i, ok := at[key{o.Service, o.Label}]; ok {
			bodies[i] = string(o.Outcome)
			continue
		}
		at[key{o.Service, o.Label}] = len(labels)
		services, labels, bodies = append(services, o.Service), append(labels, o.Label), append(bodies, string(o.Outcome))
	}
	conn, err := s.connect(ctx, false)
	if err != nil {
		return err
	}
	defer closeConn(conn)
	_, err = conn.Exec(ctx, "INSERT INTO "+s.table("history_outcomes")+" (service, label, outcome) SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])"+
		" ON CONFLICT (service, label) DO UPDATE SET outcome = EXCLUDED.outcome, kept_at = now()", services, labels, bodies)
	if err != nil {
		return s.unavailable(err)
	}
	return nil
}
