package apiclient

import (
	"context"
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// loopbackIdentity is the one host every spelling of this machine maps to
// in a service identity.
const loopbackIdentity = "127.0.0.1"

// ServiceIdentity is the one name of the service a base URL points at,
// however it is spelled: the scheme and host in lower case, the default
// port dropped, every name of this machine (localhost, 127.0.0.0/8, ::1,
// ::ffff:127.x, the unspecified 0.0.0.0 and ::, and a name every address
// of which is one of those, as the system's resolver says) as 127.0.0.1,
// no trailing dot on the host, and a clean path with no trailing slash.
// Every lock, journal key and stop mark of a plan is keyed by it, so two
// runs that spell one service two ways meet at one lock. It refuses what
// NormalizeBaseURL refuses.
func ServiceIdentity(baseURL string) (string, error) {
	return DefaultIdentities.Of(baseURL)
}

// Identities works out service identities, looking host names up with
// Lookup (net.DefaultResolver's LookupHost when nil) once per name. Tests
// give it a Lookup of their own: never the hosts file.
type Identities struct {
	Lookup func(ctx context.Context, host string) ([]string, error)
	names  sync.Map // host -> bool: every address it has is this machine's
}

// DefaultIdentities is what ServiceIdentity uses: the system's resolver.
var DefaultIdentities = &Identities{}

// identityLookupTimeout bounds one name's look-up: a name that cannot be
// resolved in time is kept as spelled.
const identityLookupTimeout = 2 * time.Second

// Of is the service identity of baseURL (ServiceIdentity).
func (ids *Identities) Of(baseURL string) (string, error) {
	return identity(baseURL, ids.onlyLoopback)
}

// onlyLoopback reports whether every address host resolves to is this
// machine's; a name that does not resolve is not.
func (ids *Identities) onlyLoopback(host string) bool {
	if v, ok := ids.names.Load(host); ok {
		return v.(bool)
	}
	lookup := ids.Lookup
	if lookup == nil {
		lookup = net.DefaultResolver.LookupHost
	}
	ctx, cancel := context.WithTimeout(context.Background(), identityLookupTimeout)
	addrs, err := lookup(ctx, host)
	cancel()
	only := err == nil && len(addrs) > 0
	for _, a := range addrs {
		if ip := net.ParseIP(a); ip == nil || !(ip.IsLoopback() || ip.IsUnspecified()) {
			only = false
		}
	}
	ids.names.Store(host, only)
	return only
}

// identity is ServiceIdentity with loopbackName saying whether a host
// name (not an address, not localhost) is this machine's; with none, a
// name and the unspecified addresses stay as spelled.
func identity(baseURL string, loopbackName func(host string) bool) (string, error) {
	u, err := parseBaseURL(baseURL, true)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	ip := net.ParseIP(host)
	switch {
	case isLoopbackHost(host):
		host = loopbackIdentity
	case ip != nil && ip.IsUnspecified() && loopbackName != nil:
		host = loopbackIdentity // 0.0.0.0 and :: reach this machine
	case ip != nil:
		host = ip.String() // one spelling of an address, v4-mapped as v4
	case host != "" && loopbackName != nil && loopbackName(host):
		host = loopbackIdentity
	}
	port := u.Port()
	if port != "" {
		n, err := strconv.Atoi(port)
		switch {
		case err != nil:
		case scheme == "http" && n == 80, scheme == "https" && n == 443:
			port = ""
		default:
			port = strconv.Itoa(n)
		}
	}
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport = net.JoinHostPort(host, port)
	}
	p := u.Path
	if p != "" {
		p = strings.TrimRight(path.Clean("/"+p), "/")
	}
	id := url.URL{Scheme: scheme, Host: hostport, Path: p}
	return id.String(), nil
}
