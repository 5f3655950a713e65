// Package smtptest is a mail server on loopback for tests, as
// net/http/httptest is a web server: it speaks enough SMTP for a client
// to hand it mail (no TLS, no authentication) and keeps each message it
// took, so a test reads the subject and body a recipient would.
package smtptest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
)

// Mail is one message the server took.
type Mail struct {
	From   string
	To     []string
	Header mail.Header
	Body   string
}

// Server is a mail server listening on 127.0.0.1.
type Server struct {
	// Addr is host:port.
	Addr string

	l     net.Listener
	wg    sync.WaitGroup
	mu    sync.Mutex
	mails []Mail
}

// NewServer starts a server on a free port of 127.0.0.1.
func NewServer() (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: l.Addr().String(), l: l}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Mails are the messages taken so far, in the order they came.
func (s *Server) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

// Close stops the server and waits for its sessions.
func (s *Server) Close() error {
	err := s.l.Close()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.session(textproto.NewConn(c))
		}()
	}
}

// session speaks SMTP on one connection until QUIT or the connection
// ends.
func (s *Server) session(c *textproto.Conn) {
	if c.PrintfLine("220 localhost smtptest") != nil {
		return
	}
	var m Mail
	for {
		line, err := c.ReadLine()
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			err = c.PrintfLine("250 localhost")
		case "MAIL":
			m = Mail{From: address(arg)}
			err = c.PrintfLine("250 OK")
		case "RCPT":
			m.To = append(m.To, address(arg))
			err = c.PrintfLine("250 OK")
		case "DATA":
			if err = c.PrintfLine("354 end with a dot"); err != nil {
				return
			}
			// DotReader undoes the dot-stuffing and stops at the lone dot.
			data, rerr := io.ReadAll(c.DotReader())
			if rerr != nil {
				return
			}
			if perr := s.keep(m, data); perr != nil {
				err = c.PrintfLine("554 %s", perr)
			} else {
				err = c.PrintfLine("250 OK")
			}
		case "RSET", "NOOP":
			err = c.PrintfLine("250 OK")
		case "QUIT":
			c.PrintfLine("221 bye")
			return
		default:
			err = c.PrintfLine("502 not implemented")
		}
		if err != nil {
			return
		}
	}
}

// keep parses a message's data and keeps it.
func (s *Server) keep(m Mail, data []byte) error {
	msg, err := mail.ReadMessage(bufio.NewReader(bytes.NewReader(data)))
	if err != nil {
		return fmt.Errorf("not a message: %v", err)
	}
	body, err := io.ReadAll(msg.Body)
	if err != nil {
		return err
	}
	m.Header, m.Body = msg.Header, string(body)
	s.mu.Lock()
	s.mails = append(s.mails, m)
	s.mu.Unlock()
	return nil
}

// address is the address of a MAIL FROM:<a> or RCPT TO:<a> argument.
func address(arg string) string {
	_, a, _ := strings.Cut(arg, ":")
	return strings.Trim(strings.TrimSpace(a), "<>")
}
