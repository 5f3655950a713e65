// Package sim is an in-memory simulation of the Betting Automation Service,
// served over real HTTP (Serve, on loopback only), for tests, the README
// demo and rehearsals. It speaks the wire format on its own (it imports
// nothing of ours), so it checks the client independently.
//
// The world is fixed by Options.Seed: a meeting a day at each venue (the
// first starting minutes after the simulator), eight races each, runners with win odds
// (six to eight greyhounds, so some boxes are vacant; six to ten horses)
// and a finishing order drawn with probability ~ 1/odds. It moves lazily:
// each request first lets it catch up with the clock. Bots of running
// sessions take a notification up Options.TakeUpDelay after creation (or
// trigger) if its race has not started (or, for the share Options.SlowBots
// of notifications the seed picks, after 85 to 95 s); races are resulted
// Options.ResultDelay (two minutes) after their start.
//
// A racing day that does not go to the card is made with MoveStart (the
// start moves, listings follow), RunAt (the race runs at another time than
// listed, as race data in the wrong time zone), and Scratch (a runner is
// withdrawn: bets on it are resulted void at once, with competition result
// "VOID" and records status "VOID", bots refuse new ones, and the runner
// leaves the race's listed runners and runner_names). Each acts
// on every notification of the race, whoever created it.
//
// A session's bookmaker account is made to refuse what the real one
// would: SetStakeBounds sets its min_bet_amount and max_bet_amount
// (account_settings; $1 and $1000 by default, no less than a
// default session's balance), and its bot refuses a slip
// outside them in the bookmaker's words ("The maximum stake is $50."),
// never capping the stake (the real service does not say which a bot
// does; a refusal is what a plan must be told of); SetRefusedMarkets makes
// it refuse a market ("Market Fixed Win is not available for this
// account."); SetLoginError leaves its bot running but not logged in: it
// makes no record of a notification it is targeted by, and a line on the
// notification's bot logs says so ("TAB spare: not logged in to TAB
// (invalid password): bet not placed"); its last_login_attempt is when
// the login failed.
//
// Quirks kept from the spec: no duplicate detection on create; a create
// that reaches no bot (or names an unknown race) is a 200; pagination
// `count` is never below 1 and an out-of-range page gives page 1;
// page_size is capped at 100; errors come as {"error": "..."} or as
// {"field": ["message", ...]}.
//
// Shapes the spec leaves open, chosen here:
//
//   - GET /notification/types/: a bare array of strings, NotificationTypes.
//     A create with "Serial" (package-made) or the doc's "Fixed Win" is a
//     400 on `type`.
//   - GET /bet/summary/: {"total_bets", "won", "lost", "pending", "failed",
//     "total_stake", "total_profit"} over the user's bet records.
//   - GET /account/readiness/: {"ready", "subscription_active",
//     "running_bots", "running_sessions", "sessions": [...], "checked_at"}.
//   - GET /account/connect_activity/, /bot/logs/, /bot/logs/{id}/,
//     /bet/codes/, /bet/markets/, /bookie/names/, /event/list/: bare arrays.
//   - GET /bookie/markets/: an object, sport → market names.
//   - Sports (events.go): AFL, NBA and Tennis fixtures play every day, the
//     first minutes after the simulator starts. GET /event/list/ lists the
//     events not started: {"id", "sports", "name", "competition", "home",
//     "away", "start_time", "status"}; GET /event/{id}/ any event, with
//     "markets": [{"id", "name", "selections": [{"id", "name", "odds",
//     "handicap"}]}] (Head To Head; Line or Games Handicap; Total Points or
//     Total Games, whose Over and Under carry the total as handicap) and
//     "result", the score once resulted. A create with sports other than
//     RACING and event_id, sports_market, sports_selection (numbers or
//     numeric strings; one that names nothing is a 400 on its field) is
//     placed at the selection's odds, unless a handicap was asked that is
//     not the listed line (with accept_better_line, a listed line better
//     for the punter is taken); without the ids it is a 200 never placed.
//     It echoes event_id, sports_market, sports_selection and handicap, its
//     tip names the event, market and selection, and it is resulted
//     ResultDelay after the event's end: won or lost by the score, void on
//     a drawn head to head.
//   - GET /notification/{id}/race/detail/: {"notification", "competition",
//     "status": "OPEN"|"CLOSED"|"RESULTED", "runners": [{"number", "name",
//     "odds", "position"}]}.
//   - POST .../cancel/ and .../trigger/: {"status": "success", "message"}.
//   - A refused bet record has submit_result "Error", amount 0, profit 0,
//     status "FAILED"; an accepted one is "PENDING" until settled, then
//     "SETTLED" with transaction_result "WIN" or "LOSS", or "VOID" (both)
//     when its runner was scratched.
//   - A notification for a race the world does not have is never resulted.
//   - POST /pick/tipster/publish/: the flat variant, every field required
//     (400 naming tips[i].field), 403 on a wrong package key, 404 when a
//     tip's race is unknown or started or its market unknown, 406 when a
//     selection is not runner syntax; all or nothing, then {"status":
//     "Success"}. Each tip fans out as a "Serial" notification to every
//     subscriber of the one package: the default user (the tipster
//     follows their own package) and subscriber@example.com.
//   - POST /pick/tipster/message/ and /pick/tipster/prealert/: both
//     served (Options.PrealertDocsOnly leaves only the docs' path), 404 on
//     a wrong key, {"status": "Success"}.
package sim
