package a2aclient

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
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
type conversationJar struct {
	jar *cookiejar.Jar
}

func newConversationJar() *conversationJar {
	jar, err := cookiejar.New(nil)
	if err != nil { // cookiejar.New fails only on options it was not given
		return nil
	}
	return &conversationJar{jar: jar}
}

// cookies returns the jar's cookies for u, to send with a request to it.
func (j *conversationJar) cookies(u *url.URL) []*http.Cookie { return j.jar.Cookies(u) }

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
	room := maxCookies - len(j.jar.Cookies(u))
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
	j.jar.SetCookies(u, keep)
}

func (j *conversationJar) holds(u *url.URL, name string) bool {
	for _, c := range j.jar.Cookies(u) {
		if c.Name == name {
			return true
		}
	}
	return false
}
