package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := encodeErr(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error": "internal server error"}`)
	}
	writeRaw(w, status, b)
}

// writeRaw writes an already encoded JSON body.
func writeRaw(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// encodeErr encodes v as the service does: compact, HTML characters as
// they are (runner names are joined by "#&#"), no trailing newline.
func encodeErr(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encode is encodeErr for values that always encode (our own structs).
func encode(v any) []byte {
	b, err := encodeErr(v)
	if err != nil {
		panic(fmt.Sprintf("sim: encode %T: %v", v, err))
	}
	return b
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// writeThrottled writes the 429 of a rate limit, Retry-After the wait
// rounded up to whole seconds, at least 1.
func writeThrottled(w http.ResponseWriter, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, "Request was throttled. Expected available in "+strconv.Itoa(secs)+" seconds.")
}

// fieldErrors is the field-level error body: {"field": ["message", ...]}.
type fieldErrors map[string][]string

func (f fieldErrors) add(field, msg string) { f[field] = append(f[field], msg) }

// writeFieldError writes the field-level 400 for a single field.
func writeFieldError(w http.ResponseWriter, field, msg string) {
	writeJSON(w, http.StatusBadRequest, fieldErrors{field: {msg}})
}

// decodeBody reads a JSON object body; a malformed one gets a 400 and false.
func decodeBody(c *call) (map[string]json.RawMessage, bool) {
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(c.body)) == 0 {
		return m, true
	}
	if err := json.Unmarshal(c.body, &m); err != nil {
		writeError(c.w, http.StatusBadRequest, "JSON parse error - "+err.Error())
		return nil, false
	}
	return m, true
}

// str reads a string field, taking a number as its text too.
func str(m map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := m[key]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var sv string
	if json.Unmarshal(raw, &sv) == nil {
		return sv, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// num reads a number field, taking a numeric string too. present reports
// whether the key was there; ok whether it was a number.
func num(m map[string]json.RawMessage, key string) (v float64, present, ok bool) {
	raw, has := m[key]
	if !has || string(raw) == "null" {
		return 0, false, false
	}
	if json.Unmarshal(raw, &v) == nil {
		return v, true, true
	}
	var sv string
	if json.Unmarshal(raw, &sv) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(sv), 64); err == nil {
			return f, true, true
		}
	}
	return 0, true, false
}

func boolean(m map[string]json.RawMessage, key string) bool {
	raw, ok := m[key]
	if !ok {
		return false
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b
	}
	var n float64
	if json.Unmarshal(raw, &n) == nil {
		return n != 0
	}
	var sv string
	if json.Unmarshal(raw, &sv) == nil {
		b, _ := strconv.ParseBool(sv)
		return b
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// span is one page of a paginated list, with the service's quirks: count
// never below 1, an out-of-range page gives page 1. Items lo..hi-1 (in
// list order) are on the page.
type span struct {
	count, pages   int
	lo, hi         int
	next, previous *string
}

func paginate(c *call, total int) span {
	q := c.r.URL.Query()
	size, err := strconv.Atoi(q.Get("page_size"))
	if err != nil || size <= 0 {
		size = 10
	}
	if size > 100 {
		size = 100
	}
	pages := (total + size - 1) / size
	if pages < 1 {
		pages = 1
	}
	n, err := strconv.Atoi(q.Get("page"))
	if err != nil || n < 1 || n > pages {
		n = 1
	}
	lo, hi := (n-1)*size, n*size
	if hi > total {
		hi = total
	}
	p := span{count: max(total, 1), pages: pages, lo: lo, hi: hi}
	link := func(k int) *string {
		scheme := "http"
		if c.r.TLS != nil {
			scheme = "https"
		}
		qq := c.r.URL.Query()
		qq.Set("page", strconv.Itoa(k))
		u := scheme + "://" + c.r.Host + c.r.URL.Path + "?" + qq.Encode()
		return &u
	}
	if n < pages {
		p.next = link(n + 1)
	}
	if n > 1 {
		p.previous = link(n - 1)
	}
	return p
}

// writePage writes the pagination envelope {"count", "next", "previous",
// "total_pages", "results"} around the page's items, item(i) giving the
// encoded JSON of item i of the list.
func writePage(w http.ResponseWriter, p span, item func(i int) []byte) {
	head := make([]byte, 0, 512)
	head = append(head, `{"count":`...)
	head = strconv.AppendInt(head, int64(p.count), 10)
	head = append(head, `,"next":`...)
	head = appendLink(head, p.next)
	head = append(head, `,"previous":`...)
	head = appendLink(head, p.previous)
	head = append(head, `,"total_pages":`...)
	head = strconv.AppendInt(head, int64(p.pages), 10)
	head = append(head, `,"results":[`...)
	// Streamed: the items are cached, a page of them is not copied again.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(head)
	for i := p.lo; i < p.hi; i++ {
		if i > p.lo {
			_, _ = w.Write(comma)
		}
		_, _ = w.Write(item(i))
	}
	_, _ = w.Write(pageEnd)
}

var comma, pageEnd = []byte(","), []byte("]}")

func appendLink(buf []byte, s *string) []byte {
	if s == nil {
		return append(buf, "null"...)
	}
	return append(buf, encode(*s)...)
}
