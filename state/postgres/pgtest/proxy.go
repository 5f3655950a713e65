package pgtest

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// Proxy forwards TCP to the database: it counts what the client sends
// (one per read, a round trip's worth) and can be cut, as if the database
// went away while the server itself keeps running for everyone else.
type Proxy struct {
	ln    net.Listener
	sent  atomic.Int64
	mu    sync.Mutex
	conns []net.Conn
	cut   bool
	down  bool // Drop: connections are refused until Restore
}

// NewProxy forwards a loopback port to target until the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &Proxy{ln: ln}
	t.Cleanup(p.Cut)
	go p.serve(target)
	return p
}

func (p *Proxy) serve(target string) {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() {
			defer up.Close()
			buf := make([]byte, 64<<10)
			for {
				n, err := c.Read(buf)
				if n > 0 {
					p.sent.Add(1)
					if _, err := up.Write(buf[:n]); err != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		go func() { io.Copy(c, up); c.Close() }()
	}
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Sent counts the client's writes so far.
func (p *Proxy) Sent() int64 { return p.sent.Load() }

// Cut closes the proxy and every connection through it.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
}

// Drop closes every connection through the proxy and refuses new ones
// until Restore: the database went away for a while.
func (p *Proxy) Drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore lets connections through again after Drop.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}
