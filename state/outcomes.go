package state

import "context"

// OutcomeCache keeps what `betplan history` read from the service of bets
// whose journals kept no outcome (written before outcome entries), so it
// is read once. A store keeps it apart from every journal, never in one a
// run may be holding: a state dir in a file beside the journals,
// PostgreSQL in a table of its own.
type OutcomeCache interface {
	// ReadOutcomes hands each kept outcome to each: the bet's service
	// and label and what was kept of it (a JSON object, as KeepOutcomes
	// was given it up to the spelling of its JSON), one a service and
	// label. A store that has kept none has none; reading writes nothing.
	ReadOutcomes(ctx context.Context, each func(service, label string, outcome []byte) error) error
	// KeepOutcomes keeps outcomes, each in place of any kept before under
	// its service and label.
	KeepOutcomes(ctx context.Context, outcomes []KeptOutcome) error
}

// KeptOutcome is one bet's outcome in an OutcomeCache.
type KeptOutcome struct {
	// Service is the service identity of the bet's journal (two plans on
	// two services may give their bets one label): "" for an outcome
	// kept before the cache was keyed by service, or of a journal that
	// names no service.
	Service string
	Label   string
	Outcome []byte // a JSON object
}
