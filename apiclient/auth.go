package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Token ages that drive the cached-token policy (service-api.md, Limits).
const (
	tokenLifetime  = 60 * 24 * time.Hour // a token is valid this long
	refreshWindow  = 7 * 24 * time.Hour  // refresh works only this soon after login
	refreshAfter   = 24 * time.Hour      // a cached token younger than this is used as is
	loginPath      = "/account/login/"
	refreshPath    = "/account/refresh_token/"
	logoutPath     = "/account/logout/"
	authHeaderName = "Authorization"
)

func (c *Client) hasCredentials() bool { return c.email != "" && c.password != "" }

func (c *Client) currentToken() string {
	c.auth.Lock()
	defer c.auth.Unlock()
	return c.token
}

// setTokenLocked installs a new token; c.auth must be held.
func (c *Client) setTokenLocked(tok string, loginTime time.Time) {
	c.addSecret(tok)
	c.token, c.loginTime = tok, loginTime
	c.tokenGen++
	c.tokenInit = true
}

// ensureToken makes sure a token is in place before an authenticated call,
// and returns its generation. Without a token it uses the cache (refreshing
// or replacing an old token) or logs in.
func (c *Client) ensureToken(ctx context.Context) (uint64, error) {
	c.auth.Lock()
	defer c.auth.Unlock()
	if c.tokenInit || !c.hasCredentials() {
		return c.tokenGen, nil
	}
	if tok, at, ok := c.readCache(); ok {
		age := c.now().Sub(at)
		switch {
		case age >= tokenLifetime:
			// Expired: log in below.
		case age >= refreshAfter && age < refreshWindow:
			if err := c.refreshLocked(ctx, tok, at); err == nil {
				return c.tokenGen, nil
			} else if ctx.Err() != nil {
				return 0, err
			}
			c.logger.Debug("apiclient cached token refresh failed; logging in")
		default:
			c.setTokenLocked(tok, at)
			return c.tokenGen, nil
		}
	}
	if err := c.loginLocked(ctx); err != nil {
		return 0, err
	}
	return c.tokenGen, nil
}

// relogin logs in again after a 401 seen with token generation gen. If
// another caller already replaced that token, it only returns: one login
// serves the whole burst.
func (c *Client) relogin(ctx context.Context, gen uint64) error {
	c.auth.Lock()
	defer c.auth.Unlock()
	if c.tokenGen != gen {
		return nil
	}
	c.dropCache()
	return c.loginLocked(ctx)
}

// Login logs in with the credentials, keeps the token and caches it.
// POST /account/login/
func (c *Client) Login(ctx context.Context) error {
	if !c.hasCredentials() {
		return errors.New("log in: no e-mail and password set")
	}
	c.auth.Lock()
	defer c.auth.Unlock()
	return c.loginLocked(ctx)
}

type tokenBody struct {
	Token string `json:"token"`
}

func (c *Client) loginLocked(ctx context.Context) error {
	req, err := c.NewRequest(ctx, http.MethodPost, loginPath, map[string]string{"email": c.email, "password": c.password})
	if err != nil {
		return err
	}
	var out tokenBody
	var raw []byte
	if err := c.Do(req, &raw); err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	if err := c.decode(req, raw, &out); err != nil {
		return fmt.Errorf("log in: %w", err)
	}
	if strings.TrimSpace(out.Token) == "" {
		// A success that is no login's: said with the body, so whoever
		// answered can be told from the service.
		return fmt.Errorf("log in: %w", &DecodeError{Method: req.Method, Path: c.apiPath(req), Body: truncateBody(raw), Err: errors.New("the service answered without a token")})
	}
	now := c.now()
	c.setTokenLocked(strings.TrimSpace(out.Token), now)
	c.writeCache(c.token, now)
	return nil
}

// RefreshToken exchanges the current token for a new one. The service
// allows it only within 7 days of the original login.
// POST /account/refresh_token/
func (c *Client) RefreshToken(ctx context.Context) error {
	if _, err := c.ensureToken(ctx); err != nil {
		return err
	}
	c.auth.Lock()
	defer c.auth.Unlock()
	if c.token == "" {
		return errors.New("refresh token: no token to refresh")
	}
	return c.refreshLocked(ctx, c.token, c.loginTime)
}

func (c *Client) refreshLocked(ctx context.Context, tok string, loginTime time.Time) error {
	c.addSecret(tok)
	req, err := c.NewRequest(ctx, http.MethodPost, refreshPath, tokenBody{Token: tok})
	if err != nil {
		return err
	}
	req.Header.Set(authHeaderName, "Token "+tok)
	var out tokenBody
	if err := c.Do(req, &out); err != nil {
		return fmt.Errorf("refresh token: %w", err)
	}
	if strings.TrimSpace(out.Token) == "" {
		return fmt.Errorf("refresh token: the service answered without a token")
	}
	// The refresh window counts from the original login, so keep its time.
	c.setTokenLocked(strings.TrimSpace(out.Token), loginTime)
	if !loginTime.IsZero() {
		c.writeCache(c.token, loginTime)
	}
	return nil
}

// Logout disconnects the bot session, forgets the token and removes it from
// the cache.
// POST /account/logout/
func (c *Client) Logout(ctx context.Context) error {
	req, err := c.NewRequest(ctx, http.MethodPost, logoutPath, nil)
	if err != nil {
		return err
	}
	if err := c.Do(req, nil); err != nil {
		return err
	}
	c.auth.Lock()
	defer c.auth.Unlock()
	c.dropCache()
	c.token, c.loginTime = "", time.Time{}
	c.tokenGen++
	c.tokenInit = false
	return nil
}

// The token cache file: tokens obtained by login, keyed by base URL and
// e-mail, with the ORIGINAL login time (the refresh window counts from it).
type tokenCache struct {
	Tokens map[string]cachedToken `json:"tokens"`
}

type cachedToken struct {
	Token     string    `json:"token"`
	LoginTime time.Time `json:"login_time"`
}

func (c *Client) cacheKey() string { return c.baseStr + " " + strings.ToLower(c.email) }

func (c *Client) loadCache() tokenCache {
	var tc tokenCache
	if b, err := os.ReadFile(c.cachePath); err == nil {
		_ = json.Unmarshal(b, &tc) // a damaged cache is as good as none
	}
	if tc.Tokens == nil {
		tc.Tokens = map[string]cachedToken{}
	}
	return tc
}

func (c *Client) readCache() (string, time.Time, bool) {
	if c.cachePath == "" || c.email == "" {
		return "", time.Time{}, false
	}
	e, ok := c.loadCache().Tokens[c.cacheKey()]
	if !ok || e.Token == "" || e.LoginTime.IsZero() {
		return "", time.Time{}, false
	}
	c.addSecret(e.Token)
	return e.Token, e.LoginTime, true
}

func (c *Client) writeCache(tok string, loginTime time.Time) {
	if c.cachePath == "" || c.email == "" {
		return
	}
	tc := c.loadCache()
	tc.Tokens[c.cacheKey()] = cachedToken{Token: tok, LoginTime: loginTime}
	if err := c.saveCache(tc); err != nil {
		c.logger.Debug("apiclient token cache not written", "error", err.Error())
	}
}

func (c *Client) dropCache() {
	if c.cachePath == "" || c.email == "" {
		return
	}
	tc := c.loadCache()
	if _, ok := tc.Tokens[c.cacheKey()]; !ok {
		return
	}
	delete(tc.Tokens, c.cacheKey())
	if err := c.saveCache(tc); err != nil {
		c.logger.Debug("apiclient token cache not written", "error", err.Error())
	}
}

// saveCache writes the cache atomically, readable by the owner only.
func (c *Client) saveCache(tc tokenCache) error {
	dir := filepath.Dir(c.cachePath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(tc, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tokens-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), c.cachePath)
}
