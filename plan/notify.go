package plan

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nicholas-fedor/shoutrrr/pkg/router"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/email/smtp"
	"github.com/nicholas-fedor/shoutrrr/pkg/services/specialized/generic"
	shoutrrrtypes "github.com/nicholas-fedor/shoutrrr/pkg/types"
	"gopkg.in/yaml.v3"
)

// Alert events: what a notify target can be told about.
const (
	EventPlaced    = "placed"     // a session accepted a bet
	EventNotPlaced = "not_placed" // every session refused it, or none took it
	EventSettled   = "settled"    // won, lost or void, with its profit
	EventLimit     = "limit"      // a limit held bets back: once per limit and period
	EventInDoubt   = "in_doubt"   // a create may have landed
	EventRunFailed = "run_failed" // a run ended with exit 1 or 3 for a failure
	EventSummary   = "summary"    // the end of a run, with its totals
	EventStopped   = "stopped"    // a run found the plan stopped (betplan stop), told once per stop
	EventMissed    = "missed"     // a bet's window passed between two runs: not created
	// EventPlanInvalid is a served plan's file edited into an invalid
	// plan: told once per broken version, while the last valid one runs.
	EventPlanInvalid = "plan_invalid"
	// EventTokenExpiring is a served account's token (no e-mail and
	// password to log in again) near its end: told at 7 days and at 1 day.
	EventTokenExpiring = "token_expiring"
)

// AlertEvent is one alert event and when it is sent, as the documentation
// says it (the README's table is generated from alertEvents).
type AlertEvent struct {
	Name string
	When string
}

// alertEvents is the one list of alert events: validate's, the report
// schema's enum and the documentation's table are made from it.
var alertEvents = []AlertEvent{
	{EventPlaced, "a session accepted the bet: who, how much, at what odds"},
	{EventNotPlaced, "every session refused it, or none took it, with the reason code and the service's own words"},
	{EventMissed, "a bet on a named race was not created because its window passed between two runs (a run before it opened, the next after the race started: the machine asleep, cron late): when it closed and when betplan last looked; told once, and the bet is not moved to the next meeting"},
	{EventSettled, "won, lost or void, with the profit"},
	{EventLimit, "a limit held bets back: told once per limit and period, saying what is true (`no new bets for saturday-card in day 2026-11-21: stop_loss $50.00: the settled profit reached -$52.40 …; 2 bets still open, $30.00 at risk`); each bet it held back is in the reports"},
	{EventInDoubt, "a create may have landed; the next run looks its label up"},
	{EventRunFailed, "the run ends with exit 1 or 3 for a failure, with its one-line reason; never for a limit doing its job, and the same failure met again by the next run is not told again. A run that cannot use the service at all (nothing answers, TLS fails, the token is refused) sends this alone, once to each target however many of the run's plans list it: without the service no journal keeps it, so each such run tells it"},
	{EventSummary, "the end of a run: its totals, once per state of the plan's bets (a cron run that finds the plan as the last run left it sends none, nor does a `--no-wait` run, or a run of a stopped plan, that created nothing and whose bets did nothing new, nor a run that never reached the service)"},
	{EventStopped, "a run found the plan stopped by `betplan stop`: told once per stop, with the money still at risk on bets not resulted yet and how to resume"},
	{EventPlanInvalid, "`betplan serve`: the plan's file was edited into an invalid plan, with each problem's `file:line:col`: told once per broken version, while the last valid version keeps running"},
	{EventTokenExpiring, "`betplan serve` with a token only (no e-mail and password to log in again): the token has 7 days left, then 1 day; told once each"},
}

// AlertEvents lists every event, in the order alerts describe them.
func AlertEvents() []string {
	out := make([]string, len(alertEvents))
	for i, e := range alertEvents {
		out[i] = e.Name
	}
	return out
}

// AlertEventsInfo lists every event with when it is sent.
func AlertEventsInfo() []AlertEvent { return slices.Clone(alertEvents) }

// DefaultAlertEvents are the events of a target without on: every event
// but placed, which a busy card would turn into noise.
func DefaultAlertEvents() []string {
	return slices.DeleteFunc(AlertEvents(), func(e string) bool { return e == EventPlaced })
}

// NotifyTarget is where alerts go: a URL as written (it may read
// environment variables, ${NAME}) and the events it is sent.
type NotifyTarget struct {
	URL string // as written: may hold ${NAME}; never shown whole
	On  []string
	// Line is where the target's url is written, for messages.
	Line int
}

// words is the target as a diff shows it: its URL as written (a literal
// one by scheme and host) and its events.
func (t NotifyTarget) words() string {
	return RedactURL(t.URL) + " on " + strings.Join(t.On, ", ")
}

// Wants reports whether the target is sent event e.
func (t NotifyTarget) Wants(e string) bool { return slices.Contains(t.On, e) }

type notifyDoc struct {
	URL *string  `yaml:"url" validate:"-" jsonschema:"required,minLength=1" jsonschema_description:"Where alerts go: https://… for a JSON webhook (http:// only on loopback), or a notification service URL such as slack://…, telegram://…, pushover://…, smtp://…, generic://…. Write it as ${NAME} to read it from the environment, so tokens stay out of the repository."`
	On  []string `yaml:"on" validate:"-" jsonschema:"uniqueItems=true,enum=placed,enum=not_placed,enum=missed,enum=settled,enum=limit,enum=in_doubt,enum=run_failed,enum=summary,enum=stopped,enum=plan_invalid,enum=token_expiring" jsonschema_description:"The events sent to this target: placed, not_placed, missed, settled, limit, in_doubt, run_failed, summary, stopped, plan_invalid, token_expiring. Absent: every event but placed."`
}

// envRef is one ${NAME} in a target URL.
var envRef = regexp.MustCompile(`\$\{([^}]*)\}`)

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkNotify reads notify: and heartbeat:.
func (p *parser) checkNotify() {
	p.plan.Notify = append(p.plan.Notify, p.readNotify(p.doc.Notify)...)
	if h := p.doc.Heartbeat; h != nil {
		if u := *h; !strings.Contains(u, "${") && !isWebhook(u) {
			p.d.errorf(p.at("heartbeat"), "heartbeat must be an https:// URL (healthchecks.io or Cronitor style), got a %s URL", schemeOf(u))
		} else if p.checkTargetURL(u, "heartbeat", "heartbeat") {
			p.plan.Heartbeat = u
		}
	}
}

// readNotify checks the notify: targets of a plan or of the account file
// and returns the good ones.
func (p *parser) readNotify(docs []notifyDoc) []NotifyTarget {
	var targets []NotifyTarget
	for i := range docs {
		path := "notify[" + strconv.Itoa(i) + "]"
		doc := &docs[i]
		if doc.URL == nil || *doc.URL == "" {
			if p.d.pos[path+".url"] == nil {
				p.d.errorf(p.at(path), "notify target is missing url: where the alerts go, e.g. url: ${SLACK_URL}")
			} else {
				p.d.errorf(p.at(path+".url"), "notify url is empty")
			}
			continue
		}
		t := NotifyTarget{URL: *doc.URL, Line: p.at(path + ".url").Line}
		ok := p.checkTargetURL(*doc.URL, path+".url", "notify url")
		if p.d.pos[path+".on"] == nil {
			t.On = DefaultAlertEvents()
		}
		seen := map[string]bool{}
		for j, e := range doc.On {
			at := p.at(path + ".on[" + strconv.Itoa(j) + "]")
			switch {
			case !slices.Contains(AlertEvents(), e):
				p.d.errorf(at, "unknown alert event %q: notify events are %s%s", e, strings.Join(AlertEvents(), ", "), didYouMean(e, AlertEvents()))
				ok = false
			case seen[e]:
				p.d.errorf(at, "duplicate event %q in on", e)
			default:
				seen[e] = true
				t.On = append(t.On, e)
			}
		}
		if n := p.d.pos[path+".on"]; n != nil && n.Kind == yaml.SequenceNode && len(doc.On) == 0 {
			p.d.warnf(n, "notify on is empty: this target is sent nothing")
		}
		if ok {
			targets = append(targets, t)
		}
	}
	return targets
}

// checkTargetURL checks a target URL as far as it can be checked without
// the environment: the ${NAME} references' syntax, and a URL with none
// whole. It never prints the URL: it may hold a token.
func (p *parser) checkTargetURL(raw, path, what string) bool {
	n := p.at(path)
	if strings.Contains(raw, "${") {
		for _, m := range envRef.FindAllStringSubmatch(raw, -1) {
			if !envName.MatchString(m[1]) {
				p.d.errorf(n, "%s: ${%s} is not an environment variable name (letters, digits and _)", what, m[1])
				return false
			}
		}
		if strings.Count(raw, "${") != len(envRef.FindAllString(raw, -1)) {
			p.d.errorf(n, "%s: a ${ without its closing }", what)
			return false
		}
		return true
	}
	if err := CheckNotifyURL(raw); err != nil {
		p.d.errorf(n, "%s: %v", what, err)
		return false
	}
	if u, err := url.Parse(raw); err == nil && !loopbackHost(u.Hostname()) {
		p.d.warnf(n, "%s is written in the plan: write it as ${NAME} and set NAME in the environment (a CI secret), so whoever reads the repository cannot use its token", what)
	}
	return true
}

// sourceURL finds a target URL in a quoted line of a plan.
var sourceURL = regexp.MustCompile(`((?:url|heartbeat)\s*:\s*["']?)([A-Za-z][A-Za-z0-9+.-]*://[^\s"'#,}\]]+)`)

// redactSource shows the target URLs of a plan's line as their scheme
// and host, for a diagnostic that quotes the line.
func redactSource(line string) string {
	if !strings.Contains(line, "://") {
		return line // no URL: spare a long line the regexp
	}
	return sourceURL.ReplaceAllStringFunc(line, func(m string) string {
		sub := sourceURL.FindStringSubmatch(m)
		return sub[1] + RedactURL(sub[2])
	})
}

// ExpandNotifyURL reads the environment variables a target URL names
// (${NAME}) with getenv. A variable that is unset or empty is an error
// naming it, never the URL.
func ExpandNotifyURL(raw string, getenv func(string) string) (string, error) {
	var missing []string
	out := envRef.ReplaceAllStringFunc(raw, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v := getenv(name)
		if v == "" {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", &UnsetVariableError{Names: missing}
	}
	return out, nil
}

// UnsetVariableError is a target URL that reads environment variables
// that are not set.
type UnsetVariableError struct{ Names []string }

func (e *UnsetVariableError) Error() string {
	return fmt.Sprintf("environment variable %s is not set", strings.Join(e.Names, ", "))
}

// CheckNotifyURL checks a target URL (after ${NAME} expansion): an http
// URL is a JSON webhook that needs https except on loopback; any other
// scheme must be one the notification library knows and parse as its
// URL. Errors never hold the URL.
func CheckNotifyURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return fmt.Errorf("not a URL: write scheme://host/…, e.g. https://hooks.example.com/… or slack://…")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		if u.Host == "" {
			return fmt.Errorf("https URL without a host")
		}
		return nil
	case "http":
		if !loopbackHost(u.Hostname()) {
			return fmt.Errorf("https is required for %s (http:// only on loopback): a webhook body says what was bet", RedactURL(raw))
		}
		return nil
	case "generic":
		// betplan posts a generic:// target through its own client, over
		// https unless the URL turns TLS off.
		end, err := GenericEndpoint(raw)
		if err != nil {
			return fmt.Errorf("%s is not a valid generic URL: see https://shoutrrr.nickfedor.com for its form", RedactURL(raw))
		}
		if end.Scheme == "http" && !loopbackHost(end.Hostname()) {
			return fmt.Errorf("TLS is required for %s (disabletls only on loopback): an alert says what was bet", RedactURL(raw))
		}
		return nil
	case "matrix":
		// The library logs in to check a matrix URL: validate stays
		// offline, and the first alert tells.
		if u.Host == "" {
			return fmt.Errorf("matrix URL without a host")
		}
		return checkLibraryTransport(u, nil)
	}
	svc, err := (&router.ServiceRouter{}).Locate(raw)
	if err != nil {
		if strings.Contains(err.Error(), "unknown service") {
			return fmt.Errorf("unknown scheme %q: use https:// for a webhook, or one of the notification services (slack, telegram, pushover, smtp, teams, generic, …)", u.Scheme)
		}
		return fmt.Errorf("%s is not a valid %s URL: see https://shoutrrr.nickfedor.com for its form", RedactURL(raw), strings.ToLower(u.Scheme))
	}
	return checkLibraryTransport(u, svc)
}

// heldLibraryRefusals are the schemes whose library betplan cannot hold
// to its rules for alerts (no redirect followed, nothing sent twice, plain
// transport only on loopback), each with the generic:// form that reaches
// the same receiver through betplan's own client.
var heldLibraryRefusals = map[string]string{
	"discord":    "its library sends a message again after a failure, so one alert could be posted twice; write generic://discord.com/api/webhooks/ID/TOKEN?template=json&messagekey=content",
	"mattermost": "its library sends through a transport of its own, which betplan cannot hold to no redirects and plain http only on loopback; write its incoming webhook as generic://HOST/hooks/KEY?template=json&messagekey=text",
	"gotify":     "its library sends through a transport of its own, which betplan cannot hold to no redirects and plain http only on loopback; write generic://HOST/message?token=TOKEN&template=json",
	"ntfy":       "its library sends through a transport of its own, which betplan cannot hold to no redirects and plain http only on loopback; write generic://ntfy.sh/TOPIC (its publish URL)",
}

// checkLibraryTransport holds a URL sent through the notification library
// (svc, when it could be read offline) to the rule the service and
// webhooks have: plain or unverified transport only on loopback. A scheme
// whose library betplan cannot hold to its rules is refused, with why.
func checkLibraryTransport(u *url.URL, svc shoutrrrtypes.Service) error {
	scheme := strings.ToLower(u.Scheme)
	if why, ok := heldLibraryRefusals[scheme]; ok {
		return fmt.Errorf("%s:// is refused: %s", scheme, why)
	}
	q := u.Query()
	plain := optionOn(q, "disabletls") || optionOn(q, "insecureskipverify") || optionOn(q, "skiptlsverify") || optionOn(q, "disabletlsverification")
	for _, v := range optionValues(q, "scheme") {
		if !strings.EqualFold(strings.TrimSpace(v), "https") {
			plain = true
		}
	}
	hint := ""
	if m, ok := svc.(*smtp.Service); ok && !smtpTLSCertain(m.Config) {
		plain, hint = true, "; add requirestarttls=yes, or use port 465"
	}
	if plain && !loopbackHost(u.Hostname()) {
		return fmt.Errorf("TLS is required for %s (plain or unverified transport only on loopback): an alert says what was bet%s", RedactURL(u.String()), hint)
	}
	return nil
}

// smtpTLSCertain reports whether the mail library cannot fall back to plain
// SMTP: implicit TLS, or STARTTLS required, with the certificate checked.
func smtpTLSCertain(c *smtp.Config) bool {
	if c == nil || c.SkipTLSVerify {
		return false
	}
	implicit := c.Encryption == smtp.EncImplicitTLS || (c.Encryption == smtp.EncAuto && c.Port == smtp.ImplicitTLSPort)
	return implicit || (c.Encryption != smtp.EncNone && c.UseStartTLS && c.RequireStartTLS)
}

// GenericEndpoint is where a generic:// target posts: its host, path and
// query over https, or plain http when the URL turns TLS off. betplan
// reads disabletls in any case of its key and value, and anything but a
// clear no as yes, so no spelling slips past the loopback rule.
func GenericEndpoint(raw string) (*url.URL, error) {
	svc, err := (&router.ServiceRouter{}).Locate(raw)
	if err != nil {
		return nil, err
	}
	g, ok := svc.(*generic.Service)
	if !ok {
		return nil, fmt.Errorf("not a generic URL")
	}
	end := g.Config.WebhookURL()
	if u, err := url.Parse(raw); err == nil && optionOn(u.Query(), "disabletls") {
		end.Scheme = "http"
	}
	return end, nil
}

// optionOn reports whether the query sets key (in any case) to anything
// but a clear no.
func optionOn(q url.Values, key string) bool {
	for _, v := range optionValues(q, key) {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "no", "n", "false", "0", "off":
		default:
			return true
		}
	}
	return false
}

// optionValues are the values the query gives key, in any case.
func optionValues(q url.Values, key string) []string {
	var out []string
	for k, vs := range q {
		if strings.EqualFold(k, key) {
			out = append(out, vs...)
		}
	}
	return out
}

// isWebhook reports whether raw is an http(s) URL.
func isWebhook(raw string) bool {
	s := strings.ToLower(schemeOf(raw))
	return s == "http" || s == "https"
}

func schemeOf(raw string) string {
	s, _, _ := strings.Cut(raw, "://")
	return s
}

// RedactURL shows a target URL as its scheme and host only
// (https://hooks.example.com/…, slack://…): the rest may be a token.
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	if strings.Contains(raw, "${") && !strings.Contains(raw, "://") {
		return raw // a reference to the environment, not a secret
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "(a URL)"
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		// A service URL's host is often its token (slack://token@…).
		return scheme + "://…"
	}
	return scheme + "://" + u.Host + "/…"
}

// loopbackHost reports whether host names this machine.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
