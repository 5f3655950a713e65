// Package plan turns a bet plan's YAML into a checked Plan: strict
// decoding with positions, validation of every field against the service's
// value sets and the plan's limits, and compiled expressions the engine
// evaluates many times.
//
// # Expressions
//
// when, for_each_race (of bets and of tips) and expression amounts
// (stake, target_profit) are written in expr (github.com/expr-lang/expr) and checked when the plan is
// loaded: when and for_each_race must give true or false, amounts a number.
// They see:
//
//	race      the race: venue, code, event_number, start, minutes_to_start,
//	          country, runners, runner_names
//	event     on a bet on a sports event (event: instead of race:) the
//	          event: id, name, sport, competition, start, minutes_to_start,
//	          markets (each a name and selections: name, market, odds,
//	          handicap) and selection, the bet's own (name, market, odds,
//	          handicap)
//	now       the current time
//	vars      the plan's vars (vars.unit)
//	sessions  the account's bookmaker sessions: id, bookie, display_name,
//	          balance, bonus_balance, bot_running, login_status
//
// Beyond expr's builtins (len, abs, min, max, floor, ceil, sum, filter,
// map, ...) there are:
//
//	round(x, places)           x rounded to places decimals
//	clamp(x, lo, hi)           x kept within lo..hi
//	running(sessions)          the sessions whose bot is running
//	total_balance(list)        the sum of the sessions' balances
//	total_bonus_balance(list)  the sum of the sessions' bonus balances
//
// For example, 1% of the running sessions' balance, between $1 and $20:
//
//	stake: clamp(round(total_balance(running(sessions)) * 0.01, 2), 1, 20)
package plan
