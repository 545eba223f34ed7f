package server_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/proctor-eval/proctor/server"
)

// TestSignInFromOtherSites: a sign-in posted from another site's page (as
// a browser says with Sec-Fetch-Site or Origin) is refused, so that no
// site can sign a visitor's browser into its own tenant; the session
// cookie is Secure behind a trusted TLS proxy, and only a trusted one.
func TestSignInFromOtherSites(t *testing.T) {
	trusted := startTenants(t, server.TenantLimits{}, func(c *server.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	untrusted := startTenants(t, server.TenantLimits{})
	type answer struct {
		Status int
		Cookie bool
		Secure bool
	}
	post := func(f *tenantFixture, header map[string]string) answer {
		req, err := http.NewRequest("POST", f.srv.URL()+server.PathUILogin, strings.NewReader(url.Values{"token": {aliceToken}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range header {
			req.Header.Set(k, strings.ReplaceAll(v, "SELF", f.srv.URL()))
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		a := answer{Status: resp.StatusCode}
		for _, c := range resp.Cookies() {
			a.Cookie, a.Secure = true, c.Secure
		}
		return a
	}
	signedIn, refused := answer{http.StatusSeeOther, true, false}, answer{Status: http.StatusForbidden}
	tests := []struct {
		name   string
		f      *tenantFixture
		header map[string]string
		want   answer
	}{
		{"no browser headers (curl)", untrusted, nil, signedIn},
		{"same-origin page", untrusted, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "SELF"}, signedIn},
		{"typed by the user", untrusted, map[string]string{"Sec-Fetch-Site": "none"}, signedIn},
		{"cross-site page", untrusted, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, refused},
		{"same-site page", untrusted, map[string]string{"Sec-Fetch-Site": "same-site"}, refused},
		{"other origin, no Sec-Fetch-Site", untrusted, map[string]string{"Origin": "https://evil.example"}, refused},
		{"X-Forwarded-Proto from anyone", untrusted, map[string]string{"X-Forwarded-Proto": "https"}, signedIn},
		{"X-Forwarded-Proto from a trusted proxy", trusted, map[string]string{"X-Forwarded-Proto": "https"}, answer{http.StatusSeeOther, true, true}},
		{"a trusted proxy, plain HTTP", trusted, map[string]string{"X-Forwarded-Proto": "http"}, signedIn},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, post(tt.f, tt.header)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
