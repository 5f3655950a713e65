package serve

import (
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/betplan/betplan/engine"
	"github.com/betplan/betplan/reporters"
)

// Metrics are what /metrics serves, in the Prometheus text format. The
// plans' bets and money are read, at each scrape, from the same summary
// /status serves (reporters.NewSummary over the runs' results: the book's
// sums), so the two never disagree.
type Metrics struct {
	reg *prometheus.Registry

	requests     *prometheus.CounterVec
	held         prometheus.Counter
	budgetWaits  prometheus.Counter
	budgetWaited prometheus.Counter
	outcome      prometheus.Histogram
	reloads      prometheus.Counter
	reloadErrors prometheus.Counter
	credentials  prometheus.Gauge

	mu      sync.Mutex
	settled map[string]bool // labels seen settled, for the outcome histogram
}

// NewMetrics registers the process's metrics; leadership and plans are
// read at each scrape.
func NewMetrics(lead func() Status, plans func() (*reporters.Summary, []*engine.Result), invalid func() int) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), settled: map[string]bool{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "betplan_requests_total",
		Help: "Requests sent to the service, by endpoint (method and path, ids as {id}) and status code (error: no answer)."}, []string{"endpoint", "code"})
	m.held = prometheus.NewCounter(prometheus.CounterOpts{Name: "betplan_requests_held_total",
		Help: "Requests held back, unsent: this process did not lead the account, or its lease was nearly over."})
	m.budgetWaits = prometheus.NewCounter(prometheus.CounterOpts{Name: "betplan_budget_waits_total",
		Help: "Requests that waited for the account's request budget (--max-rps, shared by every process of the account)."})
	m.budgetWaited = prometheus.NewCounter(prometheus.CounterOpts{Name: "betplan_budget_wait_seconds_total",
		Help: "Seconds requests waited for the account's request budget."})
	m.outcome = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "betplan_outcome_seen_seconds",
		Help:    "Seconds from a race's start to this process seeing its bet settled (the service's resulting time included).",
		Buckets: []float64{60, 120, 180, 240, 300, 450, 600, 900, 1800, 3600}})
	m.reloads = prometheus.NewCounter(prometheus.CounterOpts{Name: "betplan_plan_reloads_total",
		Help: "Plan files loaded: each at the start, and anew after each change (an edit, a new file, a removal)."})
	m.reloadErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "betplan_plan_reload_errors_total",
		Help: "Plan files found invalid after a change: the last valid version keeps running."})
	m.credentials = prometheus.NewGauge(prometheus.GaugeOpts{Name: "betplan_credentials_expiry_seconds",
		Help: "Seconds until the token in use expires (its exp claim)."})
	m.reg.MustRegister(m.requests, m.held, m.budgetWaits, m.budgetWaited, m.outcome, m.reloads, m.reloadErrors,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "betplan_leader",
		Help: "1 while this process leads the account, 0 while it stands by."}, func() float64 {
		if lead().Leading {
			return 1
		}
		return 0
	}))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "betplan_leader_fence",
		Help: "The fence of the account's leadership this process holds, or last saw held (each take-over moves it on)."},
		func() float64 { return float64(lead().Term.Fence) }))
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "betplan_leader_terms_total",
		Help: "Terms of the account's leadership this process took (its first, and each take-over)."},
		func() float64 { return float64(lead().Terms) }))
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "betplan_leader_lost_total",
		Help: "Terms of the account's leadership this process lost (taken over, or let go as it stopped)."},
		func() float64 { return float64(lead().Lost) }))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "betplan_plans_invalid",
		Help: "Plan files invalid now (their last valid version runs; see /readyz)."},
		func() float64 { return float64(invalid()) }))
	m.reg.MustRegister(&planCollector{plans: plans})
	return m
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

func (m *Metrics) request(endpoint, code string) {
	if m != nil {
		m.requests.WithLabelValues(endpoint, code).Inc()
	}
}

func (m *Metrics) requestHeld() {
	if m != nil {
		m.held.Inc()
	}
}

// BudgetWaited counts a wait for the request budget of d.
func (m *Metrics) BudgetWaited(d time.Duration) {
	if m != nil && d > time.Millisecond {
		m.budgetWaits.Inc()
		m.budgetWaited.Add(d.Seconds())
	}
}

func (m *Metrics) reloaded(invalid bool) {
	m.reloads.Inc()
	if invalid {
		m.reloadErrors.Inc()
	}
}

func (m *Metrics) credentialsLeft(d time.Duration) { m.credentials.Set(d.Seconds()) }

// observeSettled notes the bets of res seen settled for the first time:
// how long after their race's start.
func (m *Metrics) observeSettled(res *engine.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range res.Bets {
		b := &res.Bets[i]
		if b.Status != engine.StatusSettled || b.Label == "" || m.settled[b.Label] || b.Race.Start.IsZero() {
			continue
		}
		m.settled[b.Label] = true
		m.outcome.Observe(max(0, res.FinishedAt.Sub(b.Race.Start).Seconds()))
	}
}

// planCollector reads the plans' summary at each scrape.
type planCollector struct {
	plans func() (*reporters.Summary, []*engine.Result)
}

var (
	descBets       = prometheus.NewDesc("betplan_bets", "Bets of the plan by status, as status --format json counts them (by_status).", []string{"plan", "status"}, nil)
	descReasons    = prometheus.NewDesc("betplan_bets_by_reason", "Bets of the plan not created, not placed, stopped or cancelled, by reason code (report.json's reason_code).", []string{"plan", "reason"}, nil)
	descOpen       = prometheus.NewDesc("betplan_bets_open", "Bets of the plan made and not final yet (totals.open).", []string{"plan"}, nil)
	descStaked     = prometheus.NewDesc("betplan_staked_dollars", "Dollars the plan's created bets and bets in doubt requested (totals.stake_requested).", []string{"plan"}, nil)
	descAtRisk     = prometheus.NewDesc("betplan_at_risk_dollars", "Dollars the plan's bets put at risk (totals.at_risk).", []string{"plan"}, nil)
	descAccepted   = prometheus.NewDesc("betplan_accepted_dollars", "Dollars the bookmakers accepted of the plan's bets (totals.amount_accepted).", []string{"plan"}, nil)
	descProfit     = prometheus.NewDesc("betplan_profit_dollars", "The plan's settled profit in dollars (totals.profit).", []string{"plan"}, nil)
	descAcctBets   = prometheus.NewDesc("betplan_account_bets", "Every served plan's bets together, by status (account.by_status).", []string{"status"}, nil)
	descAcctOpen   = prometheus.NewDesc("betplan_account_bets_open", "Every served plan's open bets (account.open).", nil, nil)
	descAcctStaked = prometheus.NewDesc("betplan_account_staked_dollars", "Every served plan's requested dollars (account.stake_requested).", nil, nil)
	descAcctRisk   = prometheus.NewDesc("betplan_account_at_risk_dollars", "Every served plan's dollars at risk (account.at_risk).", nil, nil)
	descAcctAcc    = prometheus.NewDesc("betplan_account_accepted_dollars", "Every served plan's accepted dollars (account.amount_accepted).", nil, nil)
	descAcctProfit = prometheus.NewDesc("betplan_account_profit_dollars", "Every served plan's settled profit in dollars (account.profit).", nil, nil)
)

// Describe sends nothing: the plans' metrics come and go with the plans
// (an unchecked collector).
func (c *planCollector) Describe(chan<- *prometheus.Desc) {}

func (c *planCollector) Collect(ch chan<- prometheus.Metric) {
	s, results := c.plans()
	if s == nil {
		return
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for _, p := range s.Plans {
		for status, n := range byStatus(p.Totals.ByStatus) {
			gauge(descBets, float64(n), p.Name, status)
		}
		gauge(descOpen, float64(p.Totals.Open), p.Name)
		gauge(descStaked, p.Totals.StakeRequested, p.Name)
		gauge(descAtRisk, p.Totals.AtRisk, p.Name)
		gauge(descAccepted, p.Totals.AmountAccepted, p.Name)
		gauge(descProfit, p.Totals.Profit, p.Name)
	}
	for status, n := range byStatus(s.Account.ByStatus) {
		gauge(descAcctBets, float64(n), status)
	}
	gauge(descAcctOpen, float64(s.Account.Open))
	gauge(descAcctStaked, s.Account.StakeRequested)
	gauge(descAcctRisk, s.Account.AtRisk)
	gauge(descAcctAcc, s.Account.AmountAccepted)
	gauge(descAcctProfit, s.Account.Profit)
	for _, r := range results {
		by := map[string]int{}
		for i := range r.Bets {
			if code := r.Bets[i].Why.Code; code != "" {
				by[string(code)]++
			}
		}
		codes := make([]string, 0, len(by))
		for c := range by {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		for _, code := range codes {
			gauge(descReasons, float64(by[code]), r.PlanName, code)
		}
	}
}

// byStatus is a report's counts by status, keyed as report.json names
// them.
func byStatus(b reporters.ByStatus) map[string]int {
	return map[string]int{
		"waiting": b.Waiting, "in_doubt": b.InDoubt, "skipped": b.Skipped, "unresolved": b.Unresolved,
		"created": b.Created, "placed": b.Placed, "not_taken": b.NotTaken, "failed": b.Failed,
		"settled": b.Settled, "canceled": b.Canceled,
	}
}
