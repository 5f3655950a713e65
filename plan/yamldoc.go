package plan

// The YAML shape of a plan. These types are what the decoder fills, what
// the validator's struct rules are written on, and what the JSON Schema is
// generated from, so the three cannot drift apart.

type planDoc struct {
	Version     int                `yaml:"version" jsonschema:"required" jsonschema_description:"The plan format version: 1."`
	Name        string             `yaml:"name" validate:"required,max=40,planname" jsonschema:"required,pattern=^[a-z0-9]+(-[a-z0-9]+)*$,maxLength=40" jsonschema_description:"The plan's name: lowercase letters, digits and '-'. It is part of the label of every bet the plan creates, so renaming a plan makes its bets new."`
	Description string             `yaml:"description" jsonschema_description:"Free text for people reading the plan."`
	Vars        map[string]any     `yaml:"vars" jsonschema_description:"Free values, readable in expressions as vars.NAME (e.g. vars.unit * 2)."`
	Limits      *limitsDoc         `yaml:"limits" validate:"-" jsonschema_description:"Hard limits, checked before every bet is created against the money at risk (stake times the sessions that can place it). Total limits count within limits.period. Amounts known offline (numbers, and expressions of vars and literals only) are checked by validate; amounts that read the run (odds, balances, outcomes) when evaluated."`
	Defaults    *betDoc            `yaml:"defaults" jsonschema_description:"Values for any bet field except id; a bet's own value wins."`
	Races       map[string]raceDoc `yaml:"races" jsonschema_description:"Named races that bets refer to by key (race: KEY)."`
	Bets        []betDoc           `yaml:"bets" jsonschema:"minItems=1" jsonschema_description:"The bets, each created at most once per race. A plan has bets, tips, or both."`
	Prealert    *prealertDoc       `yaml:"prealert" jsonschema_description:"Send the tip package's pre-alert, which wakes subscribers' bots, this long before the first tip of each race."`
	Tips        []tipDoc           `yaml:"tips" jsonschema:"minItems=1" jsonschema_description:"Picks published to the subscribers of a tip package (the package API key comes from BETPLAN_TIPSTER_APIKEY), each at most once per race. A plan has bets, tips, or both."`
	Poll        *pollDoc           `yaml:"poll" jsonschema_description:"How outcomes are followed after creation."`
	Notify      []notifyDoc        `yaml:"notify" jsonschema_description:"Where alerts go (added to the account's): a list of {url, on}. Each event of a bet is sent at most once, journalled like a create; delivery never delays a create or a poll."`
	Heartbeat   *string            `yaml:"heartbeat" validate:"-" jsonschema:"minLength=1" jsonschema_description:"A URL requested at the end of every run with its exit status appended (healthchecks.io style: URL/0 on success), so a run that stops happening is noticed. https:// (http:// only on loopback); may be ${NAME}."`
}

type raceDoc struct {
	Venue       string `yaml:"venue" validate:"required" jsonschema:"required,minLength=1" jsonschema_description:"The venue as the service names it, e.g. Flemington, The Meadows."`
	Code        string `yaml:"code" validate:"required,racecode" jsonschema:"required,enum=Galloping,enum=Harness,enum=Greyhounds" jsonschema_description:"The racing code: Galloping, Harness or Greyhounds."`
	EventNumber int    `yaml:"event_number" validate:"required,min=1,max=99" jsonschema:"required,minimum=1,maximum=99" jsonschema_description:"The race number at the meeting."`
}

type betDoc struct {
	ID            string         `yaml:"id" validate:"omitempty,max=40,betid" jsonschema:"pattern=^[A-Za-z0-9][A-Za-z0-9_-]*$,maxLength=40" jsonschema_description:"The bet's id, unique in the plan; part of its label. Letters, digits, '-' and '_'."`
	Race          *raceField     `yaml:"race" validate:"-" jsonschema_description:"A key of races, or an inline race {venue, code, event_number}. Exactly one of race, for_each_race and event."`
	ForEachRace   *exprField     `yaml:"for_each_race" validate:"-" jsonschema_description:"An expression over race (true or false): one bet per matching upcoming race, e.g. race.code == \"Greyhounds\" && race.venue == \"The Meadows\"."`
	Event         *eventField    `yaml:"event" validate:"-" jsonschema_description:"A sports event instead of a race: {id} as the service lists it, or {sport, name} matched against the event list. Then market and selection are the event's names (Head To Head, Collingwood) and handicap may set the line."`
	Selection     *string        `yaml:"selection" validate:"omitempty,selection" jsonschema_description:"A runner number (\"3\"), or for Same Race Multi R:P pairs (\"2:1,6:3\": runner 2 top 1, runner 6 top 3). On an event bet, the selection's name as the event lists it (Collingwood, Over)."`
	Handicap      *Handicap      `yaml:"handicap" jsonschema_description:"On an event bet, the line for the selection (points or games, e.g. -12.5). Absent: the line the event lists."`
	Type          *string        `yaml:"type" validate:"omitempty,bettype" jsonschema:"enum=Fixed Wager,enum=Fixed Profit,enum=High Odds First" jsonschema_description:"Fixed Wager and High Odds First take stake; Fixed Profit takes target_profit."`
	Market        *string        `yaml:"market" validate:"omitempty,market" jsonschema_description:"The market, as the service names it: a racing market (Fixed Win, ...), or on an event bet one of the event's markets (Head To Head, Line, Total Points)."`
	TargetSession *string        `yaml:"target_session" jsonschema_description:"Restrict the bet to this one bookmaker session (its id, as a string)."`
	Stake         *amountField   `yaml:"stake" validate:"-" jsonschema_description:"Dollars each session places (Fixed Wager, High Odds First): every running session the bet reaches stakes it, unless options.ensure_total_wager makes it the total across sessions. A positive number with at most two decimals, or an expression giving a number, e.g. vars.unit * 2. Rounded down to cents."`
	TargetProfit  *amountField   `yaml:"target_profit" validate:"-" jsonschema_description:"Dollars of profit per session (Fixed Profit): a positive number with at most two decimals, or an expression giving a number."`
	When          *exprField     `yaml:"when" validate:"-" jsonschema_description:"An expression (true or false) that must hold before the bet is created, e.g. race.minutes_to_start <= 10. Absent: create at once."`
	Options       map[string]any `yaml:"options" jsonschema_description:"Notification options of the service, e.g. {check_odds: true, odds: 2.5}."`
}

type pollDoc struct {
	Interval *durationField `yaml:"interval" validate:"-" jsonschema_description:"How often outcomes are polled, a Go duration such as 30s or 1m30s. Default 30s."`
	Timeout  *durationField `yaml:"timeout" validate:"-" jsonschema_description:"How long outcomes are followed before the run gives up waiting, e.g. 3h. Default 3h."`
}
