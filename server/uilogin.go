package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/store"
)

// sha256Of is the SHA-256 of a token, as tokenTable keeps it.
func sha256Of(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// A browser cannot send a bearer header, so the web viewer at PathUI also
// accepts a session cookie, given in exchange for a token at PathUILogin.
// The cookie holds no token: it is an expiry time and an HMAC of the token
// and that time under a key the server draws at start, so it is worthless
// after UISessionTTL, after a restart, and once its token is no longer
// configured.
const (
	// PathUILogin is the sign-in form of the web viewer.
	PathUILogin = PathUI + "login"
	// UISessionTTL is how long a viewer session lasts.
	UISessionTTL = 12 * time.Hour
	// uiCookie names the session cookie.
	uiCookie = "proctor_ui"
)

// uiSessions signs and checks the viewer's session cookies.
type uiSessions struct {
	key    []byte
	tokens tokenTable
	now    func() time.Time
	// failures bounds failed sign-ins per source address.
	failures *signInThrottle
}

// newUISessions draws the signing key for tokens' sessions.
func newUISessions(tokens tokenTable) (*uiSessions, error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("server: session key: %w", err)
	}
	return &uiSessions{key: key, tokens: tokens, now: time.Now, failures: newSignInThrottle(time.Now)}, nil
}

// sign is the cookie value of a session for the token whose SHA-256 is
// sum, ending at expiry. The cookie names no tenant: the token it was
// signed for, found again by valid, says which.
func (u *uiSessions) sign(sum []byte, expiry int64) string {
	exp := strconv.FormatInt(expiry, 10)
	mac := hmac.New(sha256.New, u.key)
	mac.Write([]byte(exp + "\x00"))
	mac.Write(sum)
	return exp + "." + hex.EncodeToString(mac.Sum(nil))
}

// valid returns the tenant of value when it is an unexpired session of a
// configured token. Every token's signature is compared, in constant time.
func (u *uiSessions) valid(value string) (store.Tenant, bool) {
	exp, _, ok := strings.Cut(value, ".")
	expiry, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil || u.now().Unix() >= expiry {
		return store.Tenant{}, false
	}
	found := -1
	for i := range u.tokens {
		eq := subtle.ConstantTimeCompare([]byte(u.sign(u.tokens[i].sum[:], expiry)), []byte(value))
		found = subtle.ConstantTimeSelect(eq, i, found)
	}
	if found < 0 {
		return store.Tenant{}, false
	}
	return u.tokens[found].tenant, true
}

// authenticateUI lets a request through to the viewer with a bearer token
// or a session cookie; PathUILogin exchanges a token for a cookie, and any
// other request without either gets the sign-in form (401).
func (s *Server) authenticateUI(next http.Handler) http.Handler {
	bearer := s.authenticate(next)
	if len(s.tokens) == 0 {
		return bearer
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == PathUILogin:
			s.uiLogin(w, r)
		case r.Header.Get("Authorization") != "":
			bearer.ServeHTTP(w, r)
		default:
			tenant, ok := s.uiSession(r)
			if ok {
				markAuthenticated(r.Context())
				next.ServeHTTP(w, r.WithContext(store.WithTenant(r.Context(), tenant)))
				return
			}
			w.Header().Set("Connection", "close")
			writeLoginForm(w, http.StatusUnauthorized, "")
		}
	})
}

// uiSession returns the tenant of r's session cookie, if it is valid.
func (s *Server) uiSession(r *http.Request) (store.Tenant, bool) {
	c, err := r.Cookie(uiCookie)
	if err != nil {
		return store.Tenant{}, false
	}
	return s.sessions.valid(c.Value)
}

// uiLogin shows the sign-in form (GET) or checks its token (POST): a good
// one sets the session cookie and sends the browser to the viewer.
func (s *Server) uiLogin(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		writeLoginForm(w, http.StatusOK, "")
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "use GET or POST", http.StatusMethodNotAllowed)
		return
	}
	if why := crossSite(r); why != "" {
		w.Header().Set("Connection", "close")
		writeLoginForm(w, http.StatusForbidden, "Sign in from this proctor's own page: "+why+".")
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	tenant, ok := s.tokens.lookup(token)
	if !ok {
		s.refuseSignIn(w, r)
		return
	}
	expiry := s.sessions.now().Add(UISessionTTL)
	http.SetCookie(w, &http.Cookie{
		Name: uiCookie, Value: s.sessions.sign(sha256Of(token), expiry.Unix()), Path: PathUI,
		Expires: expiry, HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteStrictMode,
	})
	markAuthenticated(r.Context())
	s.audit(store.WithTenant(r.Context(), tenant), "UI sign-in", nil, auditOutcome{outcome: store.AuditAccepted})
	http.Redirect(w, r, PathUI, http.StatusSeeOther)
}

// refuseSignIn answers a sign-in with a wrong token: 401, recorded in
// the audit log with the caller's address, within the bounds of failed
// sign-ins per address; past them 429 with Retry-After, unrecorded.
func (s *Server) refuseSignIn(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	host := hostOf(r)
	if retry, ok := s.sessions.failures.fail(host); !ok {
		secs := int(retry.Round(time.Second) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		writeLoginForm(w, http.StatusTooManyRequests, fmt.Sprintf("Too many failed sign-ins from your address: try again in %d seconds.", max(secs, 1)))
		return
	}
	s.auditUnauthenticated(r.Context(), "UI sign-in", host, "not a token of this server")
	writeLoginForm(w, http.StatusUnauthorized, "That token is not one of this proctor's. Ask its operator for one.")
}

// crossSite says why a sign-in was posted from another site's page ("" if
// it was not): a browser's Sec-Fetch-Site, else its Origin, names the
// page. Without either (a command-line client) the post is let through:
// only a browser carries another site's page to us. Refusing them keeps
// another site from signing a browser into the attacker's tenant.
func crossSite(r *http.Request) string {
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
	default:
		return fmt.Sprintf("the form was posted from a %s page", site)
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return ""
	}
	if u, err := url.Parse(origin); err != nil || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Sprintf("the form was posted from %.100q, not from %.100q", origin, r.Host)
	}
	return ""
}

// secure reports whether r reached the server over TLS: its own, or a
// proxy's in Config.TrustedProxies that says so (X-Forwarded-Proto:
// https); anyone else's X-Forwarded-Proto is not believed.
func (s *Server) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if !strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https") {
		return false
	}
	addr, err := netip.ParseAddr(hostOf(r))
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// hostOf is the host of a request's peer address.
func hostOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// writeLoginForm writes the sign-in page with status and, if any, a
// problem to show. Nothing from the request is written back.
func writeLoginForm(w http.ResponseWriter, status int, problem string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	w.WriteHeader(status)
	if problem != "" {
		problem = `<p class="problem">` + problem + `</p>`
	}
	fmt.Fprintf(w, loginPage, int(UISessionTTL.Hours()), problem)
}

// loginPage is the sign-in page; %d is the session's hours, %s where a
// problem is shown.
const loginPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>proctor: sign in</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1b1f24}
input{font:inherit;width:100%%;box-sizing:border-box;padding:.5rem;margin:.5rem 0}
button{font:inherit;padding:.5rem 1rem}.problem{color:#b3261e}</style></head>
<body><h1>proctor</h1>
<p>This proctor's results are behind a token. Paste the bearer token its operator gave you
(the one you send as <code>Authorization: Bearer ...</code>); the browser keeps a session
for %d hours, never the token.</p>
%s
<form method="post" action="/ui/login"><label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button></form></body></html>
`
