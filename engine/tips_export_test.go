package engine

// TipOutcome settles a tip against a race result, for tests.
var TipOutcome = tipOutcome
