package plan

import "math"

// optionKind is the JSON type a notification option takes on the wire.
type optionKind int

const (
	optBool optionKind = iota
	optNumber
	optInt
	optString
)

func (k optionKind) String() string {
	return [...]string{"true or false", "a number", "a whole number", "a string"}[k]
}

// OptionEnsureTotalWager makes a Fixed Wager stake the total across the
// sessions that place it, split between them (service facts §2.1, §2.4).
const OptionEnsureTotalWager = "ensure_total_wager"

// options are the notification options of the service's create call that a
// plan may set (service facts §2.1), with their wire types. Amounts and the
// fields a bet has of its own (stake, market, target_session, ...) are not
// options: they go through the bet so that limits and validation see them.
var options = map[string]struct {
	kind optionKind
	help string
}{
	"odds":                         {optNumber, "minimum odds; enforced only with check_odds: true"},
	"check_odds":                   {optBool, "enforce odds as the minimum"},
	"max_odds":                     {optNumber, "maximum odds; enforced only with check_max_odds: true"},
	"check_max_odds":               {optBool, "enforce max_odds as the maximum"},
	"take_sp":                      {optBool, "take the starting price"},
	"boost_if_available":           {optBool, "use a bookmaker's odds boost when offered"},
	"spg_if_available":             {optBool, "use a bookmaker's starting price guarantee when offered"},
	"bonus_back_if_available":      {optBool, "use a bookmaker's bonus back when offered"},
	"use_bonus":                    {optBool, "bet with bonus funds instead of cash"},
	"allow_double_bets":            {optBool, "allow a second bet on the same selection"},
	OptionEnsureTotalWager:         {optBool, "with Fixed Wager, the stake is the total across the sessions that place it, split between them, not what each places"},
	"choose_best_odds":             {optBool, "bet only with the bookmakers offering the best odds"},
	"choose_random_accounts":       {optBool, "pick accounts at random"},
	"choose_random_bots":           {optBool, "pick bots at random"},
	"choose_random_bot_delay_mode": {optBool, "random delay between bots"},
	"enable_group_bot":             {optBool, "use group bots"},
	"enable_group_bot_delay":       {optBool, "delay between group bots"},
	"one_account_per_bookie":       {optBool, "at most one account per bookmaker"},
	"is_scheduled":                 {optBool, "schedule the notification"},
	"is_market_open":               {optBool, "wait for the market to open"},
	"auto_trigger":                 {optBool, "trigger automatically"},
	"accept_better_line":           {optBool, "accept a better line"},
	"only_place_bet_if_bet_return": {optNumber, "place only if the bet returns at least this"},
	"delay":                        {optInt, "delay before betting"},
	"session_delay":                {optInt, "delay between sessions"},
	"bot_delay":                    {optInt, "delay between bots"},
	"bot_delay_min_time":           {optInt, "minimum random bot delay"},
	"bot_delay_max_time":           {optInt, "maximum random bot delay"},
	"delay_between_attempts":       {optInt, "delay between attempts"},
	"max_attempts":                 {optInt, "attempts per bookmaker"},
	"bookies":                      {optString, "bookmaker ids joined by '&', e.g. \"1&8\""},
	"bookies_override":             {optString, "bookmaker override"},
	"target_bot":                   {optString, "the one bot to use"},
	"custom_stake_option":          {optString, "custom stake option"},
	"source_type":                  {optString, "source type"},
	"target_bet_type":              {optString, "target bet type"},
	"start_time":                   {optString, "ISO 8601 start of the meeting to use when not the next one, e.g. 2024-10-28T13:53:00+10:00"},
	"scheduled_at":                 {optString, "when a scheduled notification fires"},
}

// betFieldsNotOptions are create fields a plan sets as bet fields.
var betFieldsNotOptions = map[string]string{
	"type": "type", "market": "market", "selection": "selection", "stake": "stake",
	"target_profit": "target_profit", "target_session": "target_session",
	"competition": "race", "code": "race", "event_number": "race", "sports": "",
	"label": "", "total_wager": "",
	"event_id": "event", "sports_market": "market", "sports_selection": "selection", "handicap": "handicap",
}

func (p *parser) checkOptions(opts map[string]any, path string) {
	for _, k := range sortedKeys(opts) {
		v := opts[k]
		kp := path + "." + k
		spec, ok := options[k]
		if !ok {
			if field, isField := betFieldsNotOptions[k]; isField {
				if field != "" {
					p.d.errorf(p.keyAt(kp), "%s is not an option: write it as the bet's %s field", k, field)
				} else {
					p.d.errorf(p.keyAt(kp), "%s is not an option a plan may set: betplan sets it", k)
				}
				continue
			}
			p.d.errorf(p.keyAt(kp), "unknown option %q%s", k, orOptions(k))
			continue
		}
		good := false
		switch spec.kind {
		case optBool:
			_, good = v.(bool)
		case optNumber:
			switch x := v.(type) {
			case int:
				good = true
			case float64:
				good = !math.IsNaN(x) && !math.IsInf(x, 0)
			}
		case optInt:
			_, good = v.(int)
		case optString:
			_, good = v.(string)
		}
		switch {
		case good:
		case spec.kind == optNumber && notFinite(p.at(kp)):
			p.d.errorf(p.at(kp), "option %s %s is not a finite number", k, p.at(kp).Value)
		default:
			p.d.errorf(p.at(kp), "option %s must be %s, got %s", k, spec.kind, describe(p.at(kp)))
		}
	}
}

// checkOptionPairs checks the options that go together, on a bet's merged
// options; at gives the position of an option, the bet's own or the
// defaults'.
func (p *parser) checkOptionPairs(opts map[string]any, at func(k string) string) {
	num := func(k string) (float64, bool) {
		switch x := opts[k].(type) {
		case int:
			return float64(x), true
		case float64:
			return x, true
		}
		return 0, false
	}
	for _, pair := range [][2]string{{"odds", "check_odds"}, {"max_odds", "check_max_odds"}} {
		v, has := num(pair[0])
		check, isBool := opts[pair[1]].(bool)
		if _, set := opts[pair[1]]; set && !isBool {
			continue // already an error of its own
		}
		if _, set := opts[pair[0]]; set && !has {
			continue // not a number: already an error of its own
		}
		if has && v <= 1 {
			p.d.errorf(p.at(at(pair[0])), "option %s must be more than 1 (decimal odds), got %v", pair[0], v)
		}
		if has && !check {
			p.d.warnf(p.keyAt(at(pair[0])), "option %s has no effect without %s: true", pair[0], pair[1])
		}
		if check && !has {
			p.d.errorf(p.keyAt(at(pair[1])), "option %s is true but %s is not set", pair[1], pair[0])
		}
	}
	if lo, ok := num("odds"); ok {
		if hi, ok := num("max_odds"); ok && lo > hi {
			p.d.errorf(p.at(at("max_odds")), "option max_odds %v is below odds %v: no price could satisfy both", hi, lo)
		}
	}
}

func orOptions(k string) string {
	if s := didYouMean(k, sortedKeys(options)); s != "" {
		return s
	}
	return " (see the options of the plan schema)"
}
