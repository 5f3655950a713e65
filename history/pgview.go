package history

import (
	"strings"

	"github.com/jackc/pgx/v5"
)

// BetsViewSQL is the statement that makes the documented view betplan_bets
// in a shared state's schema: one row per settled bet (won, lost or void),
// read from the outcome entries of the journals, so Grafana or Metabase
// can chart the history without betplan. betplan never makes it itself: a
// new object in the schema would be a schema version older betplans on
// other machines refuse. Amounts are dollars as the journal keeps them.
//
// It reads the schema's history_entries (version 4): an outcome entry's
// fields from their columns, and from the entry itself only for the few
// entries kept as not plain, so it goes through no other entry.
func BetsViewSQL(schema string) string {
	s := pgx.Identifier{schema}.Sanitize()
	return strings.ReplaceAll(`CREATE OR REPLACE VIEW {s}.betplan_bets AS
SELECT p.name AS plan,
       p.base_url,
       h.label,
       h.bet_id,
       h.result,
       h.day::date AS day,
       h.venue,
       h.code,
       h.market,
       h.type,
       (SELECT string_agg(s->>'session', ', ')
          FROM jsonb_array_elements(coalesce(h.sessions, '[]'::jsonb)) s
         WHERE (s->>'accepted')::numeric > 0) AS sessions,
       h.accepted,
       h.odds,
       h.profit,
       h.result_time::timestamptz AS result_time
  FROM {s}.plans p
  JOIN {s}.history_entries h ON h.plan_id = p.id
 WHERE h.op = 'outcome' AND h.plain
   AND h.result IN ('won', 'lost', 'void')
UNION ALL
SELECT p.name,
       p.base_url,
       j.entry->>'label',
       j.entry->'outcome'->>'bet_id',
       j.entry->'outcome'->>'result',
       (j.entry->'outcome'->>'day')::date,
       j.entry->'outcome'->>'venue',
       j.entry->'outcome'->>'code',
       j.entry->'outcome'->>'market',
       j.entry->'outcome'->>'type',
       (SELECT string_agg(s->>'session', ', ')
          FROM jsonb_array_elements(coalesce(j.entry->'outcome'->'sessions', '[]'::jsonb)) s
         WHERE (s->>'accepted')::numeric > 0),
       (j.entry->'outcome'->>'accepted')::numeric,
       (j.entry->'outcome'->>'odds')::numeric,
       (j.entry->'outcome'->>'profit')::numeric,
       (j.entry->'outcome'->>'result_time')::timestamptz
  FROM {s}.plans p
  JOIN {s}.history_entries h ON h.plan_id = p.id AND h.op = 'outcome' AND NOT h.plain
  JOIN {s}.journal j ON j.plan_id = h.plan_id AND j.serial = h.serial
 WHERE j.entry->'outcome'->>'result' IN ('won', 'lost', 'void')`, "{s}", s)
}
