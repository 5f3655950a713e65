// Package postgres keeps plans' journals and locks in a PostgreSQL database
// shared by every machine that runs them, so each bet is created at most
// once across machines: a session advisory lock per plan, held on one
// dedicated connection for the whole run, and a lock epoch that every
// journal write checks in the same statement (a fencing token).
package postgres

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// DefaultSchema is where betplan keeps its tables unless told otherwise.
const DefaultSchema = "betplan"

// Config is a checked --state URL.
type Config struct {
	url      *url.URL // sslmode and connect_timeout settled, search_path taken out
	schema   string
	password string
}

// URLError is a --state value betplan cannot use; its message never holds
// the password.
type URLError struct{ Reason string }

func (e *URLError) Error() string { return "--state: " + e.Reason }

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// ParseURL checks a postgres:// or postgresql:// URL. schema (a flag) wins
// over the URL's search_path, which wins over DefaultSchema. Off loopback
// the connection must be encrypted: sslmode defaults to require, and a
// mode that allows plain text is refused unless insecure.
func ParseURL(raw, schema string, insecure bool) (*Config, error) {
	password := rawPassword(raw)
	if scheme, _, ok := strings.Cut(raw, "://"); !ok || (scheme != "postgres" && scheme != "postgresql") {
		what := "a value with no scheme"
		if ok {
			what = strconv.Quote(scheme + "://")
		}
		return nil, &URLError{Reason: fmt.Sprintf("want a postgres:// or postgresql:// URL, not %s", what)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		msg := err.Error()
		if errors.As(err, &ue) {
			msg = ue.Err.Error() // url.Error repeats the whole URL
		}
		if password != "" && strings.Contains(msg, password) || strings.Contains(msg, "escape") {
			msg = "it does not parse as a URL (check the percent-escapes of the user and password)"
		}
		return nil, &URLError{Reason: msg}
	}
	if p, ok := u.User.Password(); ok {
		password = p
	}
	cfg := &Config{password: password}
	host := u.Hostname()
	switch {
	case host == "":
		return nil, &URLError{Reason: fmt.Sprintf("%s names no host", redacted(u))}
	case strings.Contains(u.Host, ","):
		return nil, &URLError{Reason: fmt.Sprintf("%s names several hosts; the lock lives on one server: give one", redacted(u))}
	}
	if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, &URLError{Reason: fmt.Sprintf("%s has a bad port %q", redacted(u), p)}
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, &URLError{Reason: fmt.Sprintf("%s: the parameters after ? do not parse: %v", redacted(u), cfg.redact(err))}
	}
	for _, k := range []string{"host", "hostaddr", "port", "service", "servicefile"} {
		if q.Has(k) {
			return nil, &URLError{Reason: fmt.Sprintf("%s: put the server in the URL's host and port, not in ?%s=", redacted(u), k)}
		}
	}
	if schema == "" {
		schema = q.Get("search_path")
	}
	if schema == "" {
		schema = DefaultSchema
	}
	if !schemaName.MatchString(schema) {
		return nil, &URLError{Reason: fmt.Sprintf("schema %q: use lower-case letters, digits and _ (at most 63)", schema)}
	}
	cfg.schema = schema
	q.Del("search_path") // every table is named with its schema
	if !isLoopback(host) {
		switch mode := q.Get("sslmode"); mode {
		case "":
			q.Set("sslmode", "require")
		case "disable", "allow", "prefer":
			if !insecure {
				return nil, &URLError{Reason: fmt.Sprintf("sslmode=%s would let the password and the journal cross the network to %s in clear: use sslmode=require or verify-full, or pass --insecure", mode, host)}
			}
		}
	}
	if !q.Has("connect_timeout") {
		q.Set("connect_timeout", "10")
	}
	u.RawQuery = q.Encode()
	cfg.url = u
	return cfg, nil
}

// Schema is where the tables live.
func (c *Config) Schema() string { return c.schema }

// String is the URL with its password replaced by xxxxx, and the schema.
func (c *Config) String() string {
	return fmt.Sprintf("%s (schema %s)", redacted(c.url), c.schema)
}

// redact removes the password from err's message. pgx's own messages are
// careful, but a server's or a dialer's may quote what they were given.
func (c *Config) redact(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if c.password != "" {
		for _, p := range []string{c.password, url.QueryEscape(c.password), url.PathEscape(c.password)} {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return errors.New(msg)
}

func redacted(u *url.URL) string {
	c := *u
	c.RawQuery = ""
	return c.Redacted()
}

// rawPassword finds the password of a URL that may not parse, so that no
// error message about it can quote it.
func rawPassword(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, _ := strings.Cut(rest[:at], ":")
	return pw
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
