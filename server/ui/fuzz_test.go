package ui

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzPages requests arbitrary paths and queries: every answer is a page
// or an error page with a status a browser understands, never a panic,
// and no input reaches the page as markup.
func FuzzPages(f *testing.F) {
	for _, seed := range []string{"/", "/?limit=0", "/?before=%ff", "/eval/x", "/eval/x/sim?id=a%231", "/evalset/%00", "/conformance/..%2f", "/compare?a=<b>", "/static/style.css"} {
		f.Add(seed)
	}
	db := openStore(f)
	putEval(f, db, fixtureEval("01a20000-0000-7000-8000-000000000001", 2, 2))
	h, err := New(db, Options{Base: "/ui/"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, target string) {
		u, err := url.Parse("http://proctor.test/ui" + target)
		if err != nil || !strings.HasPrefix(target, "/") {
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}, Host: u.Host, RequestURI: u.RequestURI()})
		switch rec.Code {
		case http.StatusOK, http.StatusFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusBadRequest, http.StatusNotFound:
		default:
			t.Fatalf("GET %s: status %d\n%.500s", target, rec.Code, rec.Body.String())
		}
		if strings.Contains(rec.Body.String(), "<script") {
			t.Fatalf("GET %s: markup from the request reached the page", target)
		}
	})
}
