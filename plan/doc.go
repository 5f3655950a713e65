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
//	plan      this plan's totals in the current period of its limits (the
//	          race's meeting day, its week, or all time: limits.period),
//	          across every run of the plan: staked and open_stake (dollars
//	          at risk, in all and on bets not resulted yet), profit (settled,
//	          signed), lowest_profit and highest_profit (the settled profit
//	          at its lowest and highest so far, as results came in), bets
//	          (created), settled, won, lost
//	bets      the plan's other bets by id. A bet on one race is one value:
//	          status (as in the report: waiting, created, placed, settled,
//	          failed, ...), amount (requested), accepted, average_odds,
//	          profit, won, lost, result (the finishing order, "4/1/7"),
//	          race. A for_each_race bet is the list of its instances in the
//	          current period, each with those fields.
//
// What an expression reads of bets is checked when the plan loads: an id
// the plan does not have, a bet reading itself (also through a defaults'
// expression it takes), a field a bet does not have, or a field read
// straight off a for_each_race bet's list is an error at its line and
// column. Ids with '-' are read as bets["r3-no1"].
//
// Beyond expr's builtins (len, abs, min, max, floor, ceil, sum, filter,
// map, any, all, ...) there are:
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
//
// race 6 only after the race 3 bet lost, at double its stake:
//
//	stake: bets.r3.amount * 2
//	when: race.minutes_to_start <= 5 && bets.r3.lost
//
// and no more bets today once $50 is lost or three bets won:
//
//	when: plan.lowest_profit > -50 && plan.won < 3
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
