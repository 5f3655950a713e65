package apiclient

import (
	"net"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// loopbackIdentity is the one host every spelling of this machine maps to
// in a service identity.
const loopbackIdentity = "127.0.0.1"

// ServiceIdentity is the one name of the service a base URL points at,
// however it is spelled: the scheme and host in lower case, the default
// port dropped, every name of this machine (localhost, 127.0.0.0/8, ::1,
// ::ffff:127.x) as 127.0.0.1, no trailing dot on the host, and a clean
// path with no trailing slash. Every lock, journal key and stop mark of a
// plan is keyed by it, so two runs that spell one service two ways meet at
// one lock. It refuses what NormalizeBaseURL refuses.
func ServiceIdentity(baseURL string) (string, error) {
	u, err := parseBaseURL(baseURL, true)
	if err != nil {
		return "", err
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if isLoopbackHost(host) {
		host = loopbackIdentity
	} else if ip := net.ParseIP(host); ip != nil {
		host = ip.String() // one spelling of an address, v4-mapped as v4
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
