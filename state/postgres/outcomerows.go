package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/betplan/betplan/state"
)

var _ state.OutcomeRowsReader = (*Store)(nil)

// journalsRead are the plans whose journals hold an entry history reads,
// in the plans' name order: the order history places their journals in.
const journalsRead = `SELECT p.id, p.name, p.base_url FROM {plans} p
	WHERE EXISTS (SELECT 1 FROM {entries} h WHERE h.plan_id = p.id) ORDER BY p.name, p.id`

// entriesRead reads history_entries along its key: a plain outcome row
// (typed) from its columns, a plain created row of a bet its journal has
// an outcome row for by its label alone, and any other as its entry's
// text, from the journal (NULL over the bound). $1 is maxEntryText.
const entriesRead = `SELECT h.plan_id, h.serial, h.plain AND h.op = 'outcome', h.label, h.bet, h.time, h.outcome, h.bet_id, h.result,
	h.accepted::text, h.odds::text, h.profit::text, h.units::text, h.venue, h.code, h.day, h.market, h.type, h.result_time, h.sessions::text,
	CASE WHEN NOT h.plain OR h.op IS DISTINCT FROM 'outcome' AND NOT EXISTS (SELECT 1 FROM {entries} o
			WHERE o.plan_id = h.plan_id AND o.label = h.label AND o.op = 'outcome' AND o.plain AND o.outcome)
		THEN (SELECT ` + everyEntry + ` FROM {journal} j WHERE j.plan_id = h.plan_id AND j.serial = h.serial) END
FROM {entries} h ORDER BY h.plan_id, h.serial`

// ReadOutcomeRows reads every journal of the schema as ReadEvery does,
// handing its outcome entries on as rows (state.OutcomeRowsReader), from
// history_entries; ok is false, nothing read, before schema version 4.
// Both statements read one snapshot.
func (s *Store) ReadOutcomeRows(ctx context.Context, each func(state.StoredJournal) error) (ok bool, err error) {
	err = s.readOnly(ctx, func(conn *pgx.Conn) error {
		v, err := s.version(ctx, conn)
		if err != nil {
			return s.unavailable(err)
		}
		if v < historyEntriesVersion {
			return nil
		}
		ok = true
		if _, err := conn.Exec(ctx, "SET jit = off"); err != nil {
			return s.unavailable(err)
		}
		var eachErr error // each's, returned as it is
		sql := strings.NewReplacer("{plans}", s.table("plans"), "{journal}", s.table("journal"), "{entries}", s.table("history_entries"))
		err = pgx.BeginTxFunc(ctx, conn, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			journals := map[int64]state.StoredJournal{}
			var j state.StoredJournal
			var id int64
			var base string
			rows, err := tx.Query(ctx, sql.Replace(journalsRead))
			if err != nil {
				return err
			}
			if _, err := pgx.ForEachRow(rows, []any{&id, &j.Name, &base}, func() error {
				j.Seq, j.Where = len(journals), fmt.Sprintf("%s: plan %s on %s", s, j.Name, base)
				journals[id] = j
				return nil
			}); err != nil {
				return err
			}
			rows, err = tx.Query(ctx, sql.Replace(entriesRead), maxEntryText)
			if err != nil {
				return err
			}
			defer rows.Close()
			return s.eachRowsJournal(rows, journals, func(j state.StoredJournal) error {
				eachErr = each(j)
				return eachErr
			})
		})
		switch {
		case eachErr != nil:
			return eachErr
		case err != nil:
			return s.unavailableOr(err)
		}
		return nil
	})
	return ok, err
}

// eachRowsJournal hands each plan's rows of entriesRead to each as its
// journal (journals, by the plan's id).
func (s *Store) eachRowsJournal(rows pgx.Rows, journals map[int64]state.StoredJournal, each func(state.StoredJournal) error) error {
	var id, serial int64
	var raw [][]byte
	next := func() (bool, error) {
		if !rows.Next() {
			return false, rows.Err()
		}
		raw = rows.RawValues()
		fd := rows.FieldDescriptions()
		if fd[0].Format != pgx.BinaryFormatCode || fd[1].Format != pgx.BinaryFormatCode || len(raw[0]) != 8 || len(raw[1]) != 8 {
			return false, fmt.Errorf("history_entries: the plan and serial came as %d and %d bytes, not 8", len(raw[0]), len(raw[1]))
		}
		id, serial = int64(binary.BigEndian.Uint64(raw[0])), int64(binary.BigEndian.Uint64(raw[1]))
		return true, nil
	}
	var row state.OutcomeRow
	more, err := next()
	for more && err == nil {
		plan := id
		j, ok := journals[plan]
		if !ok {
			return fmt.Errorf("history_entries: plan %d has rows and no plan", plan)
		}
		rest := func(h *state.JournalRows) error {
			var bad error
			for more && err == nil && id == plan {
				if bad == nil && h != nil {
					bad = s.handRow(raw, serial, &row, h)
				}
				more, err = next()
			}
			if err != nil {
				return s.unavailable(err)
			}
			return bad
		}
		j.Rows = func(h state.JournalRows) error { return rest(&h) }
		if eachErr := each(j); eachErr != nil {
			return eachErr
		}
		_ = rest(nil)
	}
	return err
}

// handRow hands one row of entriesRead to h: an outcome row, a created
// entry by its label, or a record (nil: over the bound).
func (s *Store) handRow(raw [][]byte, serial int64, row *state.OutcomeRow, h *state.JournalRows) error {
	switch {
	case isTrue(raw[2]):
		*row = state.OutcomeRow{Label: raw[3], Bet: raw[4], Time: raw[5], Outcome: isTrue(raw[6]),
			BetID: raw[7], Result: raw[8], Accepted: raw[9], Odds: raw[10], Profit: raw[11], Units: raw[12],
			Venue: raw[13], Code: raw[14], Day: raw[15], Market: raw[16], Type: raw[17], ResultTime: raw[18], Sessions: raw[19]}
		return h.Outcome(row)
	case raw[20] != nil:
		return h.Record(raw[20])
	case raw[3] != nil:
		return h.Created(raw[3])
	}
	return s.tooLong(serial)
}

// isTrue reads a bool column, in binary or as text.
func isTrue(b []byte) bool { return len(b) == 1 && (b[0] == 1 || b[0] == 't') }
