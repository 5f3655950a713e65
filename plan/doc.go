// Package plan turns a bet plan's YAML into a checked Plan: strict
// decoding with positions, validation of every field against the service's
// value sets and the plan's limits, and compiled expressions the engine
// evaluates many times.
//
// # Expressions
//
// when, for_each_race (of bets and of tips) and expression amounts
// (stake, target_profit) are written in expr (github.com/expr-lang/expr)
// and checked when the plan is loaded against Env and the helper
// functions. Their reference for users is expressions.txt
// (ExpressionsHelp), printed by `betplan help expressions` and repeated
// in the README.
//
// # Limits
//
// Every limit counts money at risk. A Fixed Wager stake is placed by each
// running session the bet reaches (service facts §2.1): before a create,
// a bet puts its amount times those sessions at risk (the target session
// alone, with target_session; the amount once, with the option
// ensure_total_wager, which makes it the total across the sessions);
// after, what the sessions accepted. The total limits (max_total_stake,
// max_bets, max_open_stake, max_loss, stop_loss, take_profit) count within
// limits.period; max_stake_per_bet, max_stake_per_race and
// max_bets_per_race hold for one bet and one race. Validate counts each
// static amount at its least (one session), and holds the bets certain to
// be created (a named race, no when, a static amount) to the limits
// together.
package plan
