package history

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/betplan/betplan/engine"
)

// Outcome entries are most of what history decodes: one a bet. They are
// read here in one pass over the record, without reflection, into the
// fields history keeps. The record is a store's complete record (valid
// JSON: a state dir checks every line, PostgreSQL keeps jsonb); anything
// this reader does not expect (a key spelled in another case, a value of
// another type, an escape it does not read) makes it give up, and the
// record is decoded by encoding/json instead, which reads it the same or
// says why it does not read.

// outcomeEntry is what history reads of an outcome entry.
type outcomeEntry struct {
	time []byte // quoted, the record's own bytes
	// label and betID are the record's own bytes when written plainly
	// (no escapes), else decoded into labelText and betIDText: the bet
	// is looked up by its label, and the bet id made a string only if
	// the outcome does not give it, without a string made for either.
	label, betID         []byte
	labelText, betIDText string
	outcome              *outcomeRecord
}

// decodeOutcomeEntry reads an outcome entry, its outcome into into;
// false when it is to be read by encoding/json. names holds the strings
// outcomes repeat (results, venues, days, sessions…), made once.
func decodeOutcomeEntry(b []byte, e *outcomeEntry, into *outcomeRecord, names map[string]string) bool {
	l := lexer{b: b, names: names}
	ok := l.object(func(key []byte) bool {
		switch string(key) {
		case "op", "serial", "lineage":
			return l.skip()
		case "time":
			return l.null() || l.quoted(&e.time)
		case "label":
			return l.raw(&e.label, &e.labelText)
		case "bet":
			return l.raw(&e.betID, &e.betIDText)
		case "outcome":
			if l.null() {
				e.outcome = nil
				return true
			}
			if e.outcome == nil {
				e.outcome = into
			}
			return decodeOutcome(&l, e.outcome)
		}
		return !l.known(key, "race", "service", "account", "op", "time", "label", "bet", "outcome") && l.skip()
	})
	return ok && l.end()
}

// decodeOutcome reads an outcome object (engine.JournalOutcome).
func decodeOutcome(l *lexer, o *outcomeRecord) bool {
	return l.object(func(key []byte) bool {
		switch string(key) {
		case "bet_id":
			return l.str(&o.BetID)
		case "result":
			return l.name(&o.Result)
		case "accepted":
			return l.num(&o.Accepted)
		case "odds":
			return l.num(&o.Odds)
		case "profit":
			return l.num(&o.Profit)
		case "units":
			if l.null() {
				o.Units = nil
				return true
			}
			var u float64
			o.Units = &u
			return l.num(&u)
		case "sessions":
			return l.sessions(o)
		case "venue":
			return l.name(&o.Venue)
		case "code":
			return l.name(&o.Code)
		case "day":
			return l.name(&o.Day)
		case "market":
			return l.name(&o.Market)
		case "type":
			return l.name(&o.Type)
		case "result_time":
			var s []byte
			if l.null() {
				o.ResultTime = time.Time{}
				return true
			}
			if !l.quoted(&s) {
				return false
			}
			return o.ResultTime.UnmarshalJSON(s) == nil
		case "reason_code":
			return l.name(&o.ReasonCode)
		case "requested":
			return l.num(&o.Requested)
		}
		return !l.known(key, "bet_id", "result", "accepted", "odds", "profit", "units", "sessions", "venue", "code", "day", "market", "type", "result_time",
			"reason_code", "requested") && l.skip()
	})
}

// sessions reads an outcome's sessions: null or an array of objects.
func (l *lexer) sessions(o *outcomeRecord) bool {
	if l.null() {
		o.Sessions = nil
		return true
	}
	o.Sessions = o.Sessions[:0]
	return l.array(func() bool {
		var s engine.SessionOutcome
		ok := l.object(func(key []byte) bool {
			switch string(key) {
			case "session":
				return l.name(&s.Session)
			case "accepted":
				return l.num(&s.Accepted)
			case "odds":
				return l.num(&s.Odds)
			case "profit":
				return l.num(&s.Profit)
			}
			return !l.known(key, "session", "accepted", "odds", "profit") && l.skip()
		})
		o.Sessions = append(o.Sessions, s)
		return ok
	})
}

// lexer reads a JSON value known to be valid.
type lexer struct {
	b     []byte
	i     int
	names map[string]string
}

func (l *lexer) ws() {
	for l.i < len(l.b) {
		switch l.b[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// peek is the next byte past white space, 0 at the end.
func (l *lexer) peek() byte {
	l.ws()
	if l.i < len(l.b) {
		return l.b[l.i]
	}
	return 0
}

// end reports whether nothing but white space is left.
func (l *lexer) end() bool { return l.peek() == 0 && l.i == len(l.b) }

// known reports whether key is one of names in another case: encoding/json
// would read it as that name, so this reader gives up.
func (l *lexer) known(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// object reads an object, calling field with each key (its bytes, no
// escapes) with the lexer at the value, which field reads.
func (l *lexer) object(field func(key []byte) bool) bool {
	if l.peek() != '{' {
		return false
	}
	l.i++
	if l.peek() == '}' {
		l.i++
		return true
	}
	for {
		var key []byte
		if !l.quoted(&key) || bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		key = key[1 : len(key)-1]
		if l.peek() != ':' {
			return false
		}
		l.i++
		if !field(key) {
			return false
		}
		switch l.peek() {
		case ',':
			l.i++
		case '}':
			l.i++
			return true
		default:
			return false
		}
	}
}

// array reads an array, calling elem with the lexer at each element.
func (l *lexer) array(elem func() bool) bool {
	if l.peek() != '[' {
		return false
	}
	l.i++
	if l.peek() == ']' {
		l.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch l.peek() {
		case ',':
			l.i++
		case ']':
			l.i++
			return true
		default:
			return false
		}
	}
}

// null reads a null, if that is what is next.
func (l *lexer) null() bool {
	if l.peek() == 'n' && bytes.HasPrefix(l.b[l.i:], []byte("null")) {
		l.i += 4
		return true
	}
	return false
}

// quoted reads a string, quotes and escapes as they are.
func (l *lexer) quoted(s *[]byte) bool {
	if l.peek() != '"' {
		return false
	}
	start := l.i
	l.i++
	for {
		if l.i >= len(l.b) {
			return false
		}
		k := bytes.IndexByte(l.b[l.i:], '"')
		if k < 0 {
			return false
		}
		if e := bytes.IndexByte(l.b[l.i:l.i+k], '\\'); e >= 0 {
			l.i += e + 2 // past the escape, which may be a quote
			continue
		}
		l.i += k + 1
		*s = l.b[start:l.i]
		return true
	}
}

// raw reads a string as its own bytes between its quotes when it has no
// escapes (into b, text set to ""), else decoded into text (b set to
// nil); null leaves both as they are, as encoding/json does.
func (l *lexer) raw(b *[]byte, text *string) bool {
	if l.null() {
		return true
	}
	var q []byte
	if !l.quoted(&q) {
		return false
	}
	if bytes.IndexByte(q, '\\') >= 0 {
		*b = nil
		return json.Unmarshal(q, text) == nil
	}
	*b, *text = q[1:len(q)-1], ""
	return true
}

// str reads a string (null leaves it as it is, as encoding/json does).
func (l *lexer) str(s *string) bool { return l.text(s, false) }

// name reads a string many records repeat: made once, then shared.
func (l *lexer) name(s *string) bool { return l.text(s, true) }

// text reads a string into s as raw does, then makes a plain one a string
// of its own, shared from l.names when shared is set. (It reads the
// string itself rather than through raw: a local string raw decodes into
// would be made on the heap at every call, escaped or not.)
func (l *lexer) text(s *string, shared bool) bool {
	if l.null() {
		return true // null leaves it as it is
	}
	var q []byte
	if !l.quoted(&q) {
		return false
	}
	if bytes.IndexByte(q, '\\') >= 0 {
		var decoded string
		if json.Unmarshal(q, &decoded) != nil {
			return false
		}
		*s = decoded
		return true
	}
	q = q[1 : len(q)-1]
	if !shared {
		*s = string(q)
		return true
	}
	if v, ok := l.names[string(q)]; ok {
		*s = v
		return true
	}
	*s = string(q)
	if len(l.names) < 4096 {
		l.names[*s] = *s
	}
	return true
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// num reads a number (null leaves it as it is). A plain decimal of up to
// 15 digits is exact as an integer, and one division by an exact power of
// ten rounds it correctly; any other goes through strconv.
func (l *lexer) num(f *float64) bool {
	if l.null() {
		return true
	}
	l.ws()
	start := l.i
	neg := false
	if l.i < len(l.b) && l.b[l.i] == '-' {
		neg = true
		l.i++
	}
	var m uint64
	digits, frac := 0, -1
scan:
	for ; l.i < len(l.b); l.i++ {
		c := l.b[l.i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		case c == 'e' || c == 'E' || c == '+' || c == '-' || c == '.':
			for l.i < len(l.b) && bytes.IndexByte([]byte("0123456789eE+-."), l.b[l.i]) >= 0 {
				l.i++
			}
			digits = 99 // not a plain decimal
			break scan
		default:
			break scan
		}
	}
	if digits == 0 {
		return false
	}
	if digits > 15 || frac == 0 {
		v, err := strconv.ParseFloat(string(l.b[start:l.i]), 64)
		*f = v
		return err == nil
	}
	v := float64(m)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	*f = v
	return true
}

// skip passes over any value.
func (l *lexer) skip() bool {
	switch c := l.peek(); {
	case c == '"':
		var q []byte
		return l.quoted(&q)
	case c == '{':
		return l.object(func([]byte) bool { return l.skip() })
	case c == '[':
		return l.array(l.skip)
	case c == 'n':
		return l.null()
	case c == 't' && bytes.HasPrefix(l.b[l.i:], []byte("true")):
		l.i += 4
		return true
	case c == 'f' && bytes.HasPrefix(l.b[l.i:], []byte("false")):
		l.i += 5
		return true
	case c == '-' || c >= '0' && c <= '9':
		var f float64
		return l.num(&f)
	}
	return false
}

// createdEntry is what history reads of a created (or adopted) entry, to
// be applied at the journal's end if no outcome came for its bet.
type createdEntry struct {
	betID       string
	race        bool // the entry had a race: venue, code and start are its
	venue, code string
	start       string // quoted, as the entry has it ("" for none)
}

// decodeCreatedEntry reads a created entry; false when it is to be read by
// encoding/json.
func decodeCreatedEntry(b []byte, e *createdEntry, names map[string]string) bool {
	l := lexer{b: b, names: names}
	ok := l.object(func(key []byte) bool {
		switch string(key) {
		case "bet":
			return l.str(&e.betID)
		case "race":
			if l.null() {
				e.race, e.venue, e.code, e.start = false, "", "", ""
				return true
			}
			e.race = true
			return l.object(func(key []byte) bool {
				switch string(key) {
				case "Venue":
					return l.name(&e.venue)
				case "Code":
					return l.name(&e.code)
				case "Start":
					if l.null() {
						return true
					}
					var q []byte
					if !l.quoted(&q) {
						return false
					}
					e.start = string(q)
					return true
				}
				return !l.known(key, "venue", "code", "start") && l.skip()
			})
		}
		return !l.known(key, "race", "service", "account", "outcome", "bet") && l.skip()
	})
	return ok && l.end()
}

// apply applies the entry to its bet, as a decoded record would.
func (e *createdEntry) apply(bet *Bet) error {
	if e.betID != "" {
		bet.BetID = e.betID
	}
	if !e.race {
		return nil
	}
	bet.Venue, bet.Code = e.venue, e.code
	if e.start != "" {
		var start time.Time
		if err := start.UnmarshalJSON([]byte(e.start)); err != nil {
			return err
		}
		if !start.IsZero() {
			bet.Day = start.Format("2006-01-02")
		}
	}
	return nil
}
