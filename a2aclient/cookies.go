package a2aclient

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sync/atomic"
)

// Bounds on what an agent may store in a conversation's cookies: RFC 6265
// §6.1's minimum capacities, which browsers also stop near. Cookies beyond
// them are dropped, so a hostile agent cannot grow a conversation's memory.
const (
	maxCookieBytes = 4096 // name, value and attributes of one cookie
	maxCookies     = 50   // cookies sent to one URL
)

// conversationJar keeps the cookies an agent sets during one conversation
// and sends them back on that conversation's later requests, as a browser
// session would. Agents that tie the conversation's state to a cookie
// (tRPC-Agent-Go's server/a2a keys its sessions by context id and an
// anonymous-user cookie when no user header is sent) otherwise forget
// every earlier turn. Each conversation has its own jar: concurrent
// simulations against one agent are different users to it, as they would
// be without cookies.
//
// The cookiejar.Jar is made when the agent first sets a cookie: most
// agents never do, and looking up an empty jar on every request (its key,
// its lock) was a visible part of a turn's cost.
type conversationJar struct {
	jar atomic.Pointer[cookiejar.Jar] // nil until a cookie was set
}

func newConversationJar() *conversationJar { return &conversationJar{} }

// cookies returns the jar's cookies for u, to send with a request to it.
func (j *conversationJar) cookies(u *url.URL) []*http.Cookie {
	jar := j.jar.Load()
	if jar == nil {
		return nil
	}
	return jar.Cookies(u)
}

// store returns the jar, made now if no cookie was set before (nil if it
// cannot be made).
func (j *conversationJar) store() *cookiejar.Jar {
	if jar := j.jar.Load(); jar != nil {
		return jar
	}
	jar, err := cookiejar.New(nil)
	if err != nil { // cookiejar.New fails only on options it was not given
		return nil
	}
	if !j.jar.CompareAndSwap(nil, jar) {
		return j.jar.Load() // another request of the conversation made it first
	}
	return jar
}

// addTo adds the jar's cookies for req's URL to req, which the caller owns.
func (j *conversationJar) addTo(req *http.Request) {
	for _, c := range j.cookies(req.URL) {
		req.AddCookie(c)
	}
}

// keep stores the cookies resp sets for u, within the bounds.
func (j *conversationJar) keep(u *url.URL, resp *http.Response) {
	set := resp.Cookies()
	if len(set) == 0 {
		return
	}
	jar := j.store()
	if jar == nil {
		return
	}
	room := maxCookies - len(jar.Cookies(u))
	keep := make([]*http.Cookie, 0, len(set))
	for _, c := range set {
		if len(c.String()) > maxCookieBytes {
			continue
		}
		// Replacing or expiring a cookie the jar holds takes no room; a
		// new one does. Counting every cookie as new is the safe side.
		if room <= 0 && !j.holds(u, c.Name) {
			continue
		}
		room--
		keep = append(keep, c)
	}
	jar.SetCookies(u, keep)
}

func (j *conversationJar) holds(u *url.URL, name string) bool {
	for _, c := range j.cookies(u) {
		if c.Name == name {
			return true
		}
	}
	return false
}
