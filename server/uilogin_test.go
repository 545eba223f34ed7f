package server_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/proctor-eval/proctor/server"
)

// TestUISignIn checks the web viewer's sign-in for browsers, which cannot
// send a bearer header: a wrong token gets the form again (401), a right
// one a session cookie that opens the viewer and holds no token; a bearer
// header still works, and a forged or altered cookie does not.
func TestUISignIn(t *testing.T) {
	const token = "s3cret-token"
	viewer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "viewer page "+r.URL.Path)
	})
	f := start(t, server.Config{AuthTokens: []string{"other", token}, UI: viewer})
	base := f.srv.URL()

	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	browser := &http.Client{Jar: jar}
	get := func(c *http.Client, path, bearer string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	post := func(tok string) (int, string) {
		t.Helper()
		resp, err := browser.PostForm(base+server.PathUILogin, url.Values{"token": {tok}})
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}

	if code, body := get(browser, server.PathUI+"eval/x", ""); code != http.StatusUnauthorized || !strings.Contains(body, `action="/ui/login"`) {
		t.Fatalf("GET /ui/eval/x without a session: %d, want 401 with the sign-in form\n%s", code, body)
	}
	if code, body := post("wrong"); code != http.StatusUnauthorized || !strings.Contains(body, "not one of this proctor's") {
		t.Fatalf("sign in with a wrong token: %d, want 401 saying so\n%s", code, body)
	}
	if code, body := post(token); code != http.StatusOK || body != "viewer page /ui/" {
		t.Fatalf("sign in with the token: %d %q, want the viewer after the redirect", code, body)
	}
	if code, body := get(browser, server.PathUI+"eval/x", ""); code != http.StatusOK || body != "viewer page /ui/eval/x" {
		t.Fatalf("GET with the session: %d %q, want the viewer", code, body)
	}
	u, _ := url.Parse(base + server.PathUI)
	cookies := jar.Cookies(u)
	if len(cookies) != 1 || strings.Contains(cookies[0].Value, token) {
		t.Fatalf("session cookies %v: want one that does not hold the token", cookies)
	}

	// The session opens the viewer only: the A2A endpoints want the token.
	if code, _ := get(browser, server.PathREST+"/tasks", ""); code != http.StatusUnauthorized {
		t.Errorf("GET %s/tasks with a viewer session: %d, want 401", server.PathREST, code)
	}
	// A bearer header works without a session; a wrong one is refused.
	if code, _ := get(http.DefaultClient, server.PathUI, token); code != http.StatusOK {
		t.Errorf("GET /ui/ with the bearer token: %d, want 200", code)
	}
	if code, _ := get(http.DefaultClient, server.PathUI, "wrong"); code != http.StatusUnauthorized {
		t.Errorf("GET /ui/ with a wrong bearer token: %d, want 401", code)
	}
	// Altered and forged cookies are refused.
	value := cookies[0].Value
	exp, mac, _ := strings.Cut(value, ".")
	for name, forged := range map[string]string{
		"later expiry": "9" + exp + "." + mac,
		"altered mac":  exp + "." + strings.Repeat("0", len(mac)),
		"no mac":       exp,
		"empty":        "",
	} {
		req, _ := http.NewRequest(http.MethodGet, base+server.PathUI, nil)
		req.AddCookie(&http.Cookie{Name: "proctor_ui", Value: forged})
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s cookie: %d, want 401", name, resp.StatusCode)
		}
	}
}
