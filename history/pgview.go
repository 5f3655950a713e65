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
func BetsViewSQL(schema string) string {
	s := pgx.Identifier{schema}.Sanitize()
	return strings.ReplaceAll(`CREATE OR REPLACE VIEW {s}.betplan_bets AS
SELECT p.name AS plan,
       p.base_url,
       j.entry->'outcome'->>'label' AS label,
       j.entry->'outcome'->>'bet_id' AS bet_id,
       j.entry->'outcome'->>'result' AS result,
       (j.entry->'outcome'->>'day')::date AS day,
       j.entry->'outcome'->>'venue' AS venue,
       j.entry->'outcome'->>'code' AS code,
       j.entry->'outcome'->>'market' AS market,
       j.entry->'outcome'->>'type' AS type,
       (SELECT string_agg(s->>'session', ', ')
          FROM jsonb_array_elements(coalesce(j.entry->'outcome'->'sessions', '[]'::jsonb)) s
         WHERE (s->>'accepted')::numeric > 0) AS sessions,
       (j.entry->'outcome'->>'accepted')::numeric AS accepted,
       (j.entry->'outcome'->>'odds')::numeric AS odds,
       (j.entry->'outcome'->>'profit')::numeric AS profit,
       (j.entry->'outcome'->>'result_time')::timestamptz AS result_time
  FROM {s}.plans p
  JOIN {s}.journal j ON j.plan_id = p.id
 WHERE j.entry->>'op' = 'outcome'
   AND j.entry->'outcome'->>'result' IN ('won', 'lost', 'void')`, "{s}", s)
}
