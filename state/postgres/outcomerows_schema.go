package postgres

import "strings"

// Version 4 keeps every journal entry `betplan history` reads a second
// time, as a row of the table history_entries, and the outcome entries'
// fields in its columns: history then reads a bet's outcome from columns,
// along the table's key, instead of going through every entry and making
// each one it reads text to decode. The journal stays the record: the
// table is derived from it (a trigger fills it as entries are written,
// the migration from the entries written before), and can be rebuilt
// from it at any time: emptied, then filled as the migration does.
//
// A row is plain when history reads it the same from its columns as from
// its entry: for an outcome entry, each field history reads is of the
// type it expects, and no other key is one of those in another case
// (encoding/json would read it as that field); for a created (or adopted)
// entry, its label is a string spelled without escapes, and no key below
// the entry's is "label" too (history reads a created entry's first
// "label"). A row that is not plain, and an entry of any other op, is read
// from the journal, as before version 4.

// historyEntriesVersion is the schema version that made history_entries.
const historyEntriesVersion = 4

// historyEntry is the condition on a journal row j for a row of
// history_entries: the entries history reads (ops init, service, created,
// adopted and outcome, any whose op is not a string), and any longer as
// text than a record read back may be (maxEntryText), so a journal that
// would not read still does not. An entry stored in no more than
// smallEntry bytes is not made text to be measured.
const historyEntry = `(j.entry->>'op' IN ('init', 'service', 'created', 'adopted', 'outcome')
	OR jsonb_typeof(j.entry->'op') IS DISTINCT FROM 'string'
	OR pg_column_size(j.entry) > 1024 AND octet_length(j.entry::text) > 2097152)`

// historyEntryRows selects the rows of history_entries of the journal
// rows of {from} (a table aliased j) that historyEntry keeps. Every cast
// is of a value whose type was checked first: making a row never fails on
// what an entry holds.
const historyEntryRows = `INSERT INTO {s}.history_entries (plan_id, serial, op, plain, label, bet, time, outcome, bet_id, result,
		accepted, odds, profit, units, venue, code, day, market, type, result_time, sessions)
	SELECT j.plan_id, j.serial, j.op, j.plain,
		CASE WHEN j.plain THEN j.entry->>'label' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->>'bet' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->>'time' END,
		coalesce(j.plain AND j.op = 'outcome' AND jsonb_typeof(j.entry->'outcome') = 'object', false),
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'bet_id' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'result' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN (j.entry->'outcome'->>'accepted')::numeric END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN (j.entry->'outcome'->>'odds')::numeric END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN (j.entry->'outcome'->>'profit')::numeric END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN (j.entry->'outcome'->>'units')::numeric END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'venue' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'code' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'day' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'market' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'type' END,
		CASE WHEN j.plain AND j.op = 'outcome' THEN j.entry->'outcome'->>'result_time' END,
		CASE WHEN j.plain AND j.op = 'outcome' AND jsonb_typeof(j.entry->'outcome'->'sessions') = 'array' THEN j.entry->'outcome'->'sessions' END
	FROM (SELECT j.plan_id, j.serial, j.entry, CASE WHEN jsonb_typeof(j.entry->'op') = 'string' THEN j.entry->>'op' END AS op,
			coalesce(CASE
				WHEN pg_column_size(j.entry) > 1024 AND octet_length(j.entry::text) > 2097152 THEN false
				WHEN j.entry->>'op' = 'outcome' THEN {s}.outcome_plain(j.entry)
				WHEN j.entry->>'op' IN ('created', 'adopted') THEN {s}.created_plain(j.entry)
				ELSE false END, false) AS plain
		FROM {from} j WHERE ` + historyEntry + ` OFFSET 0) j`

// migration4 makes history_entries, keeps it filled (a trigger on the
// journal) and fills it from the entries already written; and keys the
// outcome cache by service and label. Run again on a
// schema that has them (one whose version was set back by hand), it
// remakes what is missing and keeps the rows made.
var migration4 = strings.NewReplacer("{rows-of-written}", strings.ReplaceAll(historyEntryRows, "{from}", "written"),
	"{rows-of-journal}", strings.ReplaceAll(historyEntryRows, "{from}", "{s}.journal")).Replace(migration4Statements)

const migration4Statements = `CREATE TABLE IF NOT EXISTS {s}.history_entries (
		plan_id bigint NOT NULL,
		serial bigint NOT NULL,
		op text,
		plain boolean NOT NULL,
		label text,
		bet text,
		time text,
		outcome boolean NOT NULL,
		bet_id text,
		result text,
		accepted numeric,
		odds numeric,
		profit numeric,
		units numeric,
		venue text,
		code text,
		day text,
		market text,
		type text,
		result_time text,
		sessions jsonb,
		PRIMARY KEY (plan_id, serial)
	);
	-- The outcomes of a created entry's bet, found by its label.
	CREATE INDEX IF NOT EXISTS history_entries_outcomes ON {s}.history_entries (plan_id, label) WHERE op = 'outcome' AND plain AND outcome;
	-- outcome_keys reports whether every key of the object v is one of
	-- handled, or plainly spelled (printable ASCII, no quote or backslash)
	-- and none of known in another case.
	CREATE OR REPLACE FUNCTION {s}.outcome_keys(v jsonb, handled text[], known text[]) RETURNS boolean
		LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN
		RETURN NOT EXISTS (SELECT 1 FROM jsonb_object_keys(v) k
			WHERE NOT k = ANY (handled) AND (k !~ '^[ !#-\[\]-~]*$' OR lower(k) = ANY (known)));
	END $$;
	-- outcome_plain reports whether history reads the outcome entry e the
	-- same from its row's columns as from e itself.
	CREATE OR REPLACE FUNCTION {s}.outcome_plain(e jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN
		RETURN jsonb_typeof(e) = 'object'
		AND coalesce(jsonb_typeof(e->'label'), 'null') IN ('null', 'string')
		AND coalesce(jsonb_typeof(e->'bet'), 'null') IN ('null', 'string')
		AND coalesce(jsonb_typeof(e->'time'), 'null') IN ('null', 'string')
		AND coalesce(jsonb_typeof(e->'outcome'), 'null') IN ('null', 'object')
		AND {s}.outcome_keys(e, '{op,serial,lineage,time,label,bet,outcome}', '{race,service,account,op,time,label,bet,outcome}')
		AND (jsonb_typeof(e->'outcome') IS DISTINCT FROM 'object' OR (
			(SELECT bool_and(coalesce(jsonb_typeof(e->'outcome'->f), 'null') IN ('null', 'string'))
			   FROM unnest('{bet_id,result,venue,code,day,market,type,result_time}'::text[]) f)
			AND (SELECT bool_and(coalesce(jsonb_typeof(e->'outcome'->f), 'null') IN ('null', 'number'))
			   FROM unnest('{accepted,odds,profit,units}'::text[]) f)
			AND coalesce(e->'outcome'->>'result_time', '') !~ '["\\[:cntrl:]]'
			AND {s}.outcome_keys(e->'outcome', '{bet_id,result,accepted,odds,profit,units,sessions,venue,code,day,market,type,result_time}',
				'{bet_id,result,accepted,odds,profit,units,sessions,venue,code,day,market,type,result_time}')
			AND CASE coalesce(jsonb_typeof(e->'outcome'->'sessions'), 'null')
				WHEN 'null' THEN true
				WHEN 'array' THEN (SELECT coalesce(bool_and(CASE WHEN jsonb_typeof(s) = 'object' THEN
						coalesce(jsonb_typeof(s->'session'), 'null') IN ('null', 'string')
						AND coalesce(jsonb_typeof(s->'accepted'), 'null') IN ('null', 'number')
						AND coalesce(jsonb_typeof(s->'odds'), 'null') IN ('null', 'number')
						AND coalesce(jsonb_typeof(s->'profit'), 'null') IN ('null', 'number')
						AND {s}.outcome_keys(s, '{session,accepted,odds,profit}', '{session,accepted,odds,profit}')
					ELSE false END), true)
					FROM jsonb_array_elements(e->'outcome'->'sessions') s)
				ELSE false END));
	END $$;
	-- created_plain reports whether all history reads of the created entry
	-- e, once its bet has an outcome, is its label as the row keeps it.
	CREATE OR REPLACE FUNCTION {s}.created_plain(e jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN
		RETURN jsonb_typeof(e->'label') = 'string' AND e->>'label' <> ''
		AND e->>'label' !~ '["\\[:cntrl:]]' AND NOT jsonb_path_exists(e, 'lax $.*.**.label');
	END $$;
	-- keep_history_entries keeps the rows of the journal entries a
	-- statement wrote, and drops those of the entries it removed (betplan
	-- never changes a journal row, nor removes one: a hand that does
	-- leaves the table as the journal is). It never fails the journal's
	-- write: should a row not be made, its entry is kept as not plain, to
	-- be read from the journal. It writes with its owner's rights (the
	-- role that migrated the schema), so a role granted only the tables
	-- of an earlier version still writes its journal; every name in it is
	-- qualified, and the search path pinned, as such a function must.
	CREATE OR REPLACE FUNCTION {s}.keep_history_entries() RETURNS trigger LANGUAGE plpgsql
		SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
	BEGIN
		IF TG_OP IN ('UPDATE', 'DELETE') THEN
			DELETE FROM {s}.history_entries h USING removed r WHERE h.plan_id = r.plan_id AND h.serial = r.serial;
		END IF;
		IF TG_OP IN ('INSERT', 'UPDATE') THEN
			BEGIN
				{rows-of-written};
			EXCEPTION WHEN OTHERS THEN
				INSERT INTO {s}.history_entries (plan_id, serial, plain, outcome)
				SELECT j.plan_id, j.serial, false, false FROM written j WHERE ` + historyEntry + `
				ON CONFLICT (plan_id, serial) DO NOTHING;
			END;
		END IF;
		RETURN NULL;
	END
	$$;
	CREATE OR REPLACE FUNCTION {s}.truncate_history_entries() RETURNS trigger LANGUAGE plpgsql
		SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
	BEGIN
		TRUNCATE {s}.history_entries;
		RETURN NULL;
	END
	$$;
	DROP TRIGGER IF EXISTS keep_history_entries ON {s}.journal;
	CREATE TRIGGER keep_history_entries AFTER INSERT ON {s}.journal
		REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION {s}.keep_history_entries();
	DROP TRIGGER IF EXISTS keep_history_entries_changed ON {s}.journal;
	CREATE TRIGGER keep_history_entries_changed AFTER UPDATE ON {s}.journal
		REFERENCING OLD TABLE AS removed NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION {s}.keep_history_entries();
	DROP TRIGGER IF EXISTS keep_history_entries_removed ON {s}.journal;
	CREATE TRIGGER keep_history_entries_removed AFTER DELETE ON {s}.journal
		REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION {s}.keep_history_entries();
	DROP TRIGGER IF EXISTS keep_history_entries_truncated ON {s}.journal;
	CREATE TRIGGER keep_history_entries_truncated AFTER TRUNCATE ON {s}.journal
		FOR EACH STATEMENT EXECUTE FUNCTION {s}.truncate_history_entries();
	{rows-of-journal}
	ON CONFLICT (plan_id, serial) DO NOTHING;
	-- history's outcome cache, keyed by the bet's service and label: two
	-- plans on two services may give their bets one label. An outcome
	-- kept before has no service ('').
	ALTER TABLE {s}.history_outcomes ADD COLUMN IF NOT EXISTS service text NOT NULL DEFAULT '';
	ALTER TABLE {s}.history_outcomes DROP CONSTRAINT IF EXISTS history_outcomes_pkey;
	ALTER TABLE {s}.history_outcomes ADD PRIMARY KEY (service, label)`
