package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/betplan/betplan/apiclient/sim"
)

// cmdSimTLS is `simtls`: `sim` served over https on 127.0.0.1:443, the
// default port of https, as https://localhost, with a certificate of its
// own that betplan trusts through SSL_CERT_FILE. A script skips it where
// the port cannot be taken ([!https443]: it needs root).
func cmdSimTLS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: simtls")
	}
	s := ts.Value(scriptSimKey{}).(*scriptSim)
	if s.svc != nil {
		ts.Fatalf("simtls: a simulated service is already running")
	}
	l, err := net.Listen("tcp", "127.0.0.1:443")
	ts.Check(err)
	cert, pemCert := localhostCert(ts)
	ts.Check(os.WriteFile(ts.MkAbs("sim-ca.pem"), pemCert, 0o644))
	s.clock = &jumpClock{}
	s.svc = sim.New(sim.Options{Seed: 1, Clock: s.clock})
	srv := httptest.NewUnstartedServer(s.svc)
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	ts.Defer(srv.Close)
	ts.Setenv("SSL_CERT_FILE", ts.MkAbs("sim-ca.pem"))
	ts.Setenv("BETPLAN_BASE_URL", "https://localhost")
	ts.Setenv("BETPLAN_TOKEN", s.svc.Token())
}

// canListen443 is the condition [https443]: this process can listen on
// 127.0.0.1:443 (simtls).
func canListen443() (bool, error) {
	l, err := net.Listen("tcp", "127.0.0.1:443")
	if err != nil {
		return false, nil
	}
	l.Close()
	return true, nil
}

// localhostCert is a self-signed certificate for localhost and 127.0.0.1,
// and its PEM.
func localhostCert(ts *testscript.TestScript) (tls.Certificate, []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "localhost"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	ts.Check(err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
