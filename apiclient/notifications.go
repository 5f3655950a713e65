package apiclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

const (
	maxPageSize = 100
	// maxPages bounds any walk over a paginated list, whatever the service
	// answers.
	maxPages = 10000
)

func pageQuery(page, pageSize int, extra url.Values) string {
	q := url.Values{}
	for k, v := range extra {
		q[k] = v
	}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if pageSize > 0 {
		q.Set("page_size", strconv.Itoa(min(pageSize, maxPageSize)))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

func getPage[T any](ctx context.Context, c *Client, path string, page, pageSize int, extra url.Values) (*Page[T], error) {
	p, _, err := getPageBody[T](ctx, c, path, page, pageSize, extra)
	return p, err
}

// getPageBody is getPage that also returns the raw body.
func getPageBody[T any](ctx context.Context, c *Client, path string, page, pageSize int, extra url.Values) (*Page[T], []byte, error) {
	b, req, err := c.call(ctx, http.MethodGet, path+pageQuery(page, pageSize, extra), nil)
	if err != nil {
		return nil, nil, err
	}
	var p Page[T]
	err = c.list(req, b, func(b []byte) error {
		b = bytes.TrimSpace(b)
		if err := decodePage(&c.entries, b, &p); err == nil {
			return nil
		}
		p = Page[T]{} // said as the whole page's decoding says it
		if len(b) > 0 && b[0] == '[' {
			// A bare array: one page holding everything.
			return json.Unmarshal(b, &p.Results)
		}
		return json.Unmarshal(b, &p)
	})
	if err != nil {
		return nil, nil, err
	}
	return &p, b, nil
}

// walk yields every item of a paginated list from page start on. It pages
// by number with page_size 100, never trusts `count`, stops on a null
// `next` or an empty page, and stops when the service wraps an
// out-of-range page back to page 1 (a later page with no `previous`, whose
// first item is page 1's first item, or whose body repeats an earlier
// page's). Items already yielded are not
// yielded again when the list shifts between pages.
func walk[T any](ctx context.Context, c *Client, path string, start, pageSize int, extra url.Values, id func(*T) int64) iter.Seq2[*T, error] {
	if start < 1 {
		start = 1
	}
	if pageSize <= 0 || pageSize > maxPageSize {
		pageSize = maxPageSize
	}
	return func(yield func(*T, error) bool) {
		seen := map[int64]bool{}
		bodies := map[[sha256.Size]byte]bool{}
		var firstID int64
		for n, page := 0, start; n < maxPages; n, page = n+1, page+1 {
			p, body, err := getPageBody[T](ctx, c, path, page, pageSize, extra)
			if err != nil {
				yield(nil, fmt.Errorf("page %d: %w", page, err))
				return
			}
			if len(p.Results) == 0 {
				return
			}
			sum := sha256.Sum256(body)
			if bodies[sum] {
				return // the same page again
			}
			bodies[sum] = true
			if n == 0 && page > 1 && p.Previous == nil {
				return // an out-of-range start: the service answered page 1
			}
			head := id(&p.Results[0])
			if n == 0 {
				firstID = head
			} else if p.Previous == nil && page > 1 || head != 0 && head == firstID {
				return // the service answered page 1 again
			}
			for i := range p.Results {
				it := &p.Results[i]
				if k := id(it); k != 0 {
					if seen[k] {
						continue
					}
					seen[k] = true
				}
				if !yield(it, nil) {
					return
				}
			}
			if p.Next == nil || strings.TrimSpace(*p.Next) == "" {
				return
			}
		}
	}
}

func notificationQuery(opts ListNotificationsOptions) url.Values {
	q := url.Values{}
	if opts.Label != "" {
		q.Set("label", opts.Label)
	}
	return q
}

// ListNotifications returns one page of notifications. Rely on
// len(Results), never on Count.
// GET /notification/
func (c *Client) ListNotifications(ctx context.Context, opts ListNotificationsOptions) (*Page[Notification], error) {
	return getPage[Notification](ctx, c, "/notification/", opts.Page, opts.PageSize, notificationQuery(opts))
}

// Notifications yields every notification from opts.Page on (page_size 100
// unless opts.PageSize is smaller). On an error it yields (nil, err) and
// stops.
// GET /notification/
func (c *Client) Notifications(ctx context.Context, opts ListNotificationsOptions) iter.Seq2[*Notification, error] {
	return walk(ctx, c, "/notification/", opts.Page, opts.PageSize, notificationQuery(opts),
		func(n *Notification) int64 { return int64(n.ID) })
}

// NotificationsByLabel returns every notification whose label is exactly
// label. The service's label filter is used but not trusted: results with
// another label are dropped.
// GET /notification/?label=...
func (c *Client) NotificationsByLabel(ctx context.Context, label string) ([]Notification, error) {
	if label == "" {
		return nil, errors.New("notifications by label: empty label")
	}
	var out []Notification
	for n, err := range c.Notifications(ctx, ListNotificationsOptions{Label: label, PageSize: maxPageSize}) {
		if err != nil {
			return nil, fmt.Errorf("notifications labelled %q: %w", label, err)
		}
		if n.Label == label {
			out = append(out, *n)
		}
	}
	return out, nil
}

// CreateNotification creates one bet instruction. It is never repeated by
// the client: the service has no duplicate protection. On an error for
// which IsAmbiguous is true (timeout, lost connection, 5xx) the
// notification may exist: look its label up before sending it again. On a
// 401 the client logs in again (with credentials) but does not repeat the
// create. A 2xx body that cannot be read is not an error: the result's ID
// is then 0 and the caller finds the notification by label.
// POST /notification/create/
func (c *Client) CreateNotification(ctx context.Context, req *CreateNotificationRequest) (*CreateResult, error) {
	if req == nil {
		return nil, errors.New("create notification: nil request")
	}
	b, _, err := c.call(ctx, http.MethodPost, "/notification/create/", req)
	if err != nil {
		return nil, err
	}
	return parseCreateResult(b), nil
}

// parseCreateResult reads any of the create answers the sources show: the
// created notification (id a number or a string), {"id": ..., "message":
// ...}, or opaque text such as OK.
func parseCreateResult(body []byte) *CreateResult {
	res := &CreateResult{Raw: append([]byte(nil), body...)}
	b := bytes.TrimSpace(body)
	if len(b) == 0 {
		return res
	}
	switch b[0] {
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(b, &obj) != nil {
			res.Message = truncateBody(b)
			return res
		}
		if raw, ok := obj["id"]; ok {
			var id Int
			if json.Unmarshal(raw, &id) == nil && id > 0 {
				res.ID = int64(id)
			}
		}
		for _, k := range []string{"message", "detail", "status"} {
			var s String
			if raw, ok := obj[k]; ok && json.Unmarshal(raw, &s) == nil && s != "" {
				res.Message = string(s)
				break
			}
		}
		if looksLikeNotification(obj) {
			var n Notification
			if json.Unmarshal(b, &n) == nil {
				res.Notification = &n
				if res.ID == 0 {
					res.ID = int64(n.ID)
				}
			}
		}
	case '"':
		var s string
		if json.Unmarshal(b, &s) == nil {
			res.Message = s
			if id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && id > 0 {
				res.ID = id
			}
		} else {
			res.Message = truncateBody(b)
		}
	default:
		res.Message = truncateBody(b)
		var id Int
		if json.Unmarshal(b, &id) == nil && id > 0 {
			res.ID = int64(id)
		}
	}
	return res
}

func looksLikeNotification(obj map[string]json.RawMessage) bool {
	for _, k := range []string{"tip", "label", "type", "stake", "created_at", "sports"} {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// NotificationTypes lists the supported notification types.
// GET /notification/types/
func (c *Client) NotificationTypes(ctx context.Context) ([]string, error) {
	return c.names(ctx, "/notification/types/", "results", "types", "data")
}

// ScheduledNotifications lists the saved (scheduled) bets, every page
// when the answer is paginated.
// GET /notification/scheduled/
func (c *Client) ScheduledNotifications(ctx context.Context) ([]Notification, error) {
	var out []Notification
	for n, err := range walk(ctx, c, "/notification/scheduled/", 1, maxPageSize, nil, func(n *Notification) int64 { return int64(n.ID) }) {
		if err != nil {
			return nil, err
		}
		out = append(out, *n)
	}
	return out, nil
}

// TriggerNotification fires a scheduled bet.
// POST /notification/{id}/trigger/
func (c *Client) TriggerNotification(ctx context.Context, id int64) error {
	_, _, err := c.call(ctx, http.MethodPost, idPath("/notification/%s/trigger/", id), nil)
	return err
}

// CancelNotification cancels a bet.
// POST /notification/{id}/cancel/
func (c *Client) CancelNotification(ctx context.Context, id int64) error {
	_, _, err := c.call(ctx, http.MethodPost, idPath("/notification/%s/cancel/", id), nil)
	return err
}

// NotificationRaceDetail returns the race detail of a notification.
// GET /notification/{id}/race/detail/
func (c *Client) NotificationRaceDetail(ctx context.Context, id int64) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, idPath("/notification/%s/race/detail/", id), nil)
}

// ---- bet history ----

// ListBets returns one page of the per-session bet history.
// GET /bet/
func (c *Client) ListBets(ctx context.Context, opts ListBetsOptions) (*Page[BetRecord], error) {
	return getPage[BetRecord](ctx, c, "/bet/", opts.Page, opts.PageSize, nil)
}

// Bets yields every bet record from opts.Page on.
// GET /bet/
func (c *Client) Bets(ctx context.Context, opts ListBetsOptions) iter.Seq2[*BetRecord, error] {
	return walk(ctx, c, "/bet/", opts.Page, opts.PageSize, nil, func(r *BetRecord) int64 { return int64(r.ID) })
}

// BetsByNotification returns the bet records of one notification, one per
// session that attempted it. The body is a bare array (old doc) or an
// object with "bets" (new doc); the pagination envelope is read too.
// GET /bet/notification/{id}/
func (c *Client) BetsByNotification(ctx context.Context, id int64) ([]BetRecord, error) {
	d, err := c.NotificationDetail(ctx, id)
	if err != nil {
		return nil, err
	}
	return d.Bets, nil
}

// SearchBets fetches bet records by id. It is read-only, so it is retried
// like a GET.
// POST /bet/search/
func (c *Client) SearchBets(ctx context.Context, ids []int64) ([]BetRecord, error) {
	if ids == nil {
		ids = []int64{}
	}
	return getList[BetRecord](ctx, c, http.MethodPost, "/bet/search/", map[string][]int64{"ids": ids}, "results", "bets")
}

// BetSummary returns aggregate win/loss counts.
// GET /bet/summary/
func (c *Client) BetSummary(ctx context.Context) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, "/bet/summary/", nil)
}

// BotLogs returns the customer-visible bot logs.
// GET /bot/logs/
func (c *Client) BotLogs(ctx context.Context) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, "/bot/logs/", nil)
}

// NotificationBotLogs returns the bot logs of one notification.
// GET /bot/logs/{notification_id}/
func (c *Client) NotificationBotLogs(ctx context.Context, id int64) (json.RawMessage, error) {
	return c.raw(ctx, http.MethodGet, idPath("/bot/logs/%s/", id), nil)
}

// decodePage decodes a page (or a bare array, one page holding
// everything) with each entry decoded once: an entry read before with
// the same bytes is taken from entries. A run reads the page of its open
// bets every poll interval, and most of them come back unchanged.
func decodePage[T any](entries *entryCache, b []byte, p *Page[T]) error {
	var raw Page[json.RawMessage]
	var err error
	if len(b) > 0 && b[0] == '[' {
		err = json.Unmarshal(b, &raw.Results)
	} else {
		err = json.Unmarshal(b, &raw)
	}
	if err != nil {
		return err
	}
	*p = Page[T]{Count: raw.Count, Next: raw.Next, Previous: raw.Previous, TotalPages: raw.TotalPages}
	if raw.Results == nil {
		return nil
	}
	p.Results = make([]T, len(raw.Results))
	for i, r := range raw.Results {
		if err := decodeEntry(entries, r, &p.Results[i]); err != nil {
			return err
		}
	}
	return nil
}

// entryCache holds list entries decoded, by their bytes and type: the
// entries of the last reads, at most 2*entryCacheSize of them.
type entryCache struct {
	mu        sync.Mutex
	cur, prev map[entryKey]any
}

type entryKey struct {
	typ reflect.Type
	raw string
}

const entryCacheSize = 2000

// decodeEntry decodes raw into dst, or copies what raw decoded to before.
func decodeEntry[T any](c *entryCache, raw json.RawMessage, dst *T) error {
	key := entryKey{reflect.TypeFor[T](), string(raw)}
	c.mu.Lock()
	v, ok := c.cur[key]
	if !ok {
		v, ok = c.prev[key]
	}
	c.mu.Unlock()
	if ok {
		*dst = v.(T)
	} else {
		var t T
		if err := json.Unmarshal(raw, &t); err != nil {
			return err
		}
		*dst, v = t, t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cur) >= entryCacheSize {
		c.prev, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = map[entryKey]any{}
	}
	c.cur[key] = v
	return nil
}

// bodyReads, in the context of a walk's requests, bounds each answer's
// body at limit instead of maxBodyBytes, and counts the bytes read of
// them as they came, before any cleaning, retries included.
type bodyReads struct {
	limit int64
	n     atomic.Int64
}

type bodyReadsKey struct{}

// bodyLimit is the most attempt reads of an answer's body in ctx, and
// where it counts what it read (nil: nowhere).
func bodyLimit(ctx context.Context) (int64, *atomic.Int64) {
	if r, ok := ctx.Value(bodyReadsKey{}).(*bodyReads); ok {
		return r.limit, &r.n
	}
	return maxBodyBytes, nil
}

// maxBetsPageBytes is the most EachBet reads of one page of bet records:
// a hundred records take a few hundred kilobytes.
const maxBetsPageBytes = 8 << 20

// BetsPage is one page of bet records that EachBet read.
type BetsPage struct {
	Number  int // the page, from 1
	Records int // the records on it
	Bytes   int // the bytes of its body, as they came (retries too)
}

// EachBet walks GET /bet/ from page 1, page_size 100, as Bets does: it
// stops after an empty page or a null `next`, or where the service
// answers page 1 again. It keeps none of it: each record goes to record
// as it is decoded, and each page is yielded once its records have gone,
// so the caller, which stops the walk when it has read enough, holds what
// it needs and no more. Nothing is cached: the records of a walk are read
// once. A page's body is read up to maxBetsPageBytes; a page over it ends
// the walk with an error, as does an error from record (as it is).
// Records are not taken out when the list shifts between pages: the
// caller, which keeps what it needs, knows their ids.
// GET /bet/
func (c *Client) EachBet(ctx context.Context, record func(*BetRecord) error) iter.Seq2[BetsPage, error] {
	return func(yield func(BetsPage, error) bool) {
		reads := &bodyReads{limit: maxBetsPageBytes}
		ctx := context.WithValue(ctx, bodyReadsKey{}, reads)
		bodies := map[[sha256.Size]byte]bool{}
		var firstID int64
		for page := 1; page <= maxPages; page++ {
			before := reads.n.Load()
			b, req, err := c.call(ctx, http.MethodGet, "/bet/"+pageQuery(page, maxPageSize, nil), nil)
			if err != nil {
				yield(BetsPage{Number: page}, fmt.Errorf("page %d: %w", page, err))
				return
			}
			var raw Page[json.RawMessage]
			if err := c.list(req, b, func(b []byte) error {
				b = bytes.TrimSpace(b)
				if len(b) > 0 && b[0] == '[' {
					return json.Unmarshal(b, &raw.Results) // a bare array: one page holding everything
				}
				return json.Unmarshal(b, &raw)
			}); err != nil {
				yield(BetsPage{Number: page}, fmt.Errorf("page %d: %w", page, err))
				return
			}
			if len(raw.Results) == 0 {
				return
			}
			sum := sha256.Sum256(b)
			if bodies[sum] || page > 1 && raw.Previous == nil {
				return // the same page again, or page 1 for a page past the end
			}
			bodies[sum] = true
			size := int(reads.n.Load() - before)
			b = nil
			for i, r := range raw.Results {
				var rec BetRecord
				if err := json.Unmarshal(r, &rec); err != nil {
					yield(BetsPage{Number: page}, fmt.Errorf("page %d: %w", page, &DecodeError{Method: req.Method, Path: c.apiPath(req), Body: truncateBody(r), Err: err}))
					return
				}
				raw.Results[i] = nil // read: let it go
				if i == 0 {
					head := int64(rec.ID)
					if page == 1 {
						firstID = head
					} else if head != 0 && head == firstID {
						return // the service answered page 1 again
					}
				}
				if err := record(&rec); err != nil {
					yield(BetsPage{Number: page}, err)
					return
				}
			}
			if !yield(BetsPage{Number: page, Records: len(raw.Results), Bytes: size}, nil) {
				return
			}
			if raw.Next == nil || strings.TrimSpace(*raw.Next) == "" {
				return
			}
		}
		yield(BetsPage{Number: maxPages + 1}, fmt.Errorf("GET /bet/: more than %d pages", maxPages))
	}
}
