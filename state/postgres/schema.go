package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrations are the schema's versions, in order: version i+1 is
// migrations[i]. Append, never edit: a deployed database has run them.
// {s} is the schema, quoted.
var migrations = []string{
	`CREATE TABLE {s}.plans (
		id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
		name text NOT NULL,
		base_url text NOT NULL,
		-- the fencing token: bumped by every run that takes the lock and
		-- by unlock --force; a journal write only lands while it is the
		-- writer's
		epoch bigint NOT NULL DEFAULT 0,
		holder_pid integer,
		holder_host text,
		holder_command text,
		holder_plan_file text,
		holder_since timestamptz,
		holder_backend integer,
		UNIQUE (name, base_url)
	);
	CREATE TABLE {s}.journal (
		plan_id bigint NOT NULL REFERENCES {s}.plans (id),
		serial bigint NOT NULL,
		entry jsonb NOT NULL,
		epoch bigint NOT NULL,
		written_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (plan_id, serial)
	)`,
	// The kill switch (betplan stop): while set, no run of the plan
	// creates anything.
	`ALTER TABLE {s}.plans ADD COLUMN stop_mark jsonb`,
	// history's outcome cache: what it read from the service of bets
	// whose journals kept no outcome, apart from every journal.
	`CREATE TABLE {s}.history_outcomes (
		label text PRIMARY KEY,
		outcome jsonb NOT NULL,
		kept_at timestamptz NOT NULL DEFAULT now()
	)`,
	// Outcome entries kept as rows too, for history (outcomerows_schema.go).
	migration4,
	// Each account's leadership (betplan serve): who leads, its fence,
	// and when its lease runs out by this server's clock (leader.go).
	`CREATE TABLE IF NOT EXISTS {s}.leaders (
		account text PRIMARY KEY,
		fence bigint NOT NULL,
		instance text NOT NULL,
		holder_pid integer,
		holder_host text,
		holder_command text,
		holder_plan_file text,
		holder_since timestamptz,
		since timestamptz NOT NULL,
		expires_at timestamptz NOT NULL
	)`,
}

// SchemaVersion is the version of the schema this betplan writes.
var SchemaVersion = len(migrations)

// errNoSchema means betplan never wrote to this schema.
var errNoSchema = errors.New("no betplan schema yet")

// version reads the schema's version.
func (s *Store) version(ctx context.Context, conn *pgx.Conn) (int, error) {
	var v int
	err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+s.table("schema_version")).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") { // undefined table, schema
		return 0, errNoSchema
	}
	return v, err
}

// checkVersion refuses a schema written by a newer betplan: it may keep
// state this one would misread, and a lock it does not know how to honour.
func (s *Store) checkVersion(v int) error {
	if v > SchemaVersion {
		return fmt.Errorf("schema %s is at version %d, newer than this betplan knows (%d): upgrade betplan on this machine", s.cfg.schema, v, SchemaVersion)
	}
	return nil
}

// migrate brings the schema to SchemaVersion. Runs starting at once on
// several machines take turns on a transaction-scoped advisory lock, so
// each migration runs once.
func (s *Store) migrate(ctx context.Context, conn *pgx.Conn) error {
	v, err := s.version(ctx, conn)
	switch {
	case err == nil && v == SchemaVersion:
		return nil
	case err == nil:
		if err := s.checkVersion(v); err != nil {
			return err
		}
	case !errors.Is(err, errNoSchema):
		return err
	}
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.key("migrate")); err != nil {
			return err
		}
		// CREATE SCHEMA IF NOT EXISTS asks for the right to create in the
		// database even when the schema is there: an account's role that
		// owns a schema made for it, and may create nothing else, could
		// never migrate it.
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", s.cfg.schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+s.quotedSchema()); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+s.table("schema_version")+
			" (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"); err != nil {
			return err
		}
		var v int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM "+s.table("schema_version")).Scan(&v); err != nil {
			return err
		}
		if err := s.checkVersion(v); err != nil {
			return err
		}
		for i := v; i < SchemaVersion; i++ {
			if _, err := tx.Exec(ctx, strings.ReplaceAll(migrations[i], "{s}", s.quotedSchema())); err != nil {
				return fmt.Errorf("migrate schema %s to version %d: %w", s.cfg.schema, i+1, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO "+s.table("schema_version")+" (version) VALUES ($1)", i+1); err != nil {
				return err
			}
		}
		return nil
	})
}
