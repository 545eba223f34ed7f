package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/proctor-eval/proctor/internal/agentdial"
)

// Well-known card paths: the current name, and the pre-0.3 one.
const (
	cardPath       = "/.well-known/agent-card.json"
	legacyCardPath = "/.well-known/agent.json"
)

// cardTransport is how card results name their transport.
func cardTransport() []string { return []string{"HTTP"} }

// cardInfo is what the checks need from the card.
type cardInfo struct {
	raw        map[string]json.RawMessage
	interfaces []Interface
	streaming  bool
	// security says the card requires credentials.
	security bool
}

// cardURLs are the URLs to try for the card of target.
func cardURLs(u *url.URL) (primary, legacy string) {
	if strings.HasSuffix(u.Path, ".json") {
		return u.String(), ""
	}
	base := *u
	base.RawQuery, base.Fragment = "", ""
	path := strings.TrimRight(base.Path, "/")
	base.Path = path + cardPath
	primary = base.String()
	base.Path = path + legacyCardPath
	return primary, base.String()
}

// fetchCard reads the card and checks how it is served. It returns nil
// when there is no card to go on.
func (r *run) fetchCard(ctx context.Context, u *url.URL) *cardInfo {
	primary, legacy := cardURLs(u)
	r.rep.CardURL = primary
	get := func(cardURL string, noAuth bool) (*httpAnswer, Exchange, error) {
		return r.p.do(ctx, "HTTP", httpRequest{method: http.MethodGet, url: cardURL, noAuth: noAuth})
	}
	ans, ex, err := get(primary, true)
	authNeeded := err == nil && (ans.Status == http.StatusUnauthorized || ans.Status == http.StatusForbidden)
	switch {
	case authNeeded:
		r.fail(ReqCardPublic, cardTransport(), "HTTP 200 without credentials", fmt.Sprintf("HTTP %d", ans.Status), ex)
		if r.o.token == "" {
			r.skip(ReqCardWellKnown, cardTransport(), "the card could not be read without credentials; give an auth token to check the rest")
			return nil
		}
		ans, ex, err = get(primary, false)
	case err == nil && ans.Status == http.StatusNotFound && legacy != "":
		if lans, lex, lerr := get(legacy, true); lerr == nil && lans.Status == http.StatusOK {
			r.fail(ReqCardWellKnown, cardTransport(), "the card at "+cardPath, "HTTP 404 there; the card is only at the legacy "+legacyCardPath, ex, lex)
			r.pass(ReqCardPublic, cardTransport(), "the card is readable without credentials")
			r.rep.CardURL = legacy
			return r.parseCard(lans, lex, false)
		}
	}
	if err != nil {
		r.fail(ReqCardWellKnown, cardTransport(), "the agent card at "+primary, "no card: "+err.Error(), ex)
		return nil
	}
	if ans.Status != http.StatusOK {
		r.fail(ReqCardWellKnown, cardTransport(), "HTTP 200 with the agent card at "+primary, fmt.Sprintf("HTTP %d", ans.Status), ex)
		return nil
	}
	if !authNeeded {
		r.pass(ReqCardPublic, cardTransport(), "the card is readable without credentials")
	}
	return r.parseCard(ans, ex, true)
}

func (r *run) parseCard(ans *httpAnswer, ex Exchange, wellKnown bool) *cardInfo {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(ans.Body, &raw); err != nil || raw == nil {
		r.fail(ReqCardWellKnown, cardTransport(), "a JSON object", "a body that is not one", ex)
		return nil
	}
	if wellKnown {
		r.pass(ReqCardWellKnown, cardTransport(), "the card is served at "+cardPath)
	}
	if mt := mediaType(ans.Header.Get("Content-Type")); mt == "application/json" || strings.HasSuffix(mt, "+json") {
		r.pass(ReqCardContentType, cardTransport(), "Content-Type "+mt)
	} else {
		r.fail(ReqCardContentType, cardTransport(), "Content-Type application/json", fmt.Sprintf("Content-Type %q", ans.Header.Get("Content-Type")), ex)
	}
	info := &cardInfo{raw: raw}
	r.rep.AgentName = jsonStr(raw["name"])
	r.rep.AgentVersion = jsonStr(raw["version"])
	r.checkCardFields(info, ex)
	r.checkSkills(info, ex)
	r.checkCapabilities(info, ex)
	r.checkSecurity(info, ex)
	r.checkDefaults(info, ex)
	r.gatherInterfaces(info, ex)
	return info
}

func jsonStr(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// jsonType names a JSON value's type.
func jsonType(raw json.RawMessage) string {
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// stringArray reports whether raw is an array of strings.
func stringArray(raw json.RawMessage) ([]string, bool) {
	var a []string
	if json.Unmarshal(raw, &a) != nil || jsonType(raw) != "array" {
		return nil, false
	}
	return a, true
}

// card forms: which version's top-level fields the card has.
func cardForms(raw map[string]json.RawMessage) (v1, v03 bool) {
	v1 = raw["supportedInterfaces"] != nil
	v03 = raw["url"] != nil || raw["preferredTransport"] != nil || raw["protocolVersion"] != nil
	return v1, v03
}

func (r *run) checkCardFields(info *cardInfo, ex Exchange) {
	raw := info.raw
	var problems []string
	want := func(key, typ string, nonEmpty bool) {
		v, ok := raw[key]
		switch {
		case !ok || string(v) == "null":
			problems = append(problems, fmt.Sprintf("no %s", key))
		case jsonType(v) != typ:
			problems = append(problems, fmt.Sprintf("%s is a %s, not a %s", key, jsonType(v), typ))
		case key == "defaultInputModes" || key == "defaultOutputModes":
			if a, ok := stringArray(v); !ok {
				problems = append(problems, fmt.Sprintf("%s is not an array of strings", key))
			} else if nonEmpty && len(a) == 0 {
				problems = append(problems, fmt.Sprintf("%s is empty", key))
			}
		case typ == "string" && nonEmpty && jsonStr(v) == "":
			problems = append(problems, fmt.Sprintf("%s is empty", key))
		case typ == "array" && nonEmpty && strings.TrimSpace(string(v)) == "[]":
			problems = append(problems, fmt.Sprintf("%s is empty", key))
		}
	}
	want("name", "string", true)
	want("description", "string", true)
	want("version", "string", true)
	want("capabilities", "object", false)
	want("defaultInputModes", "array", true)
	want("defaultOutputModes", "array", true)
	// skills is required but may be empty: the specification's own
	// signing example (1.0 §8.4.1) keeps a required "skills": [].
	want("skills", "array", false)
	v1, v03 := cardForms(raw)
	if v1 {
		want("supportedInterfaces", "array", true)
	}
	if v03 {
		want("url", "string", true)
		// protocolVersion and preferredTransport have defaults (0.3.0,
		// JSONRPC): judged with them, their absence is ReqCardDefaults'.
		if v, ok := raw["protocolVersion"]; ok && string(v) != "null" {
			want("protocolVersion", "string", true)
		}
	}
	if !v1 && !v03 {
		problems = append(problems, "neither supportedInterfaces (1.0) nor url (0.3)")
	}
	if len(problems) > 0 {
		r.fail(ReqCardRequiredFields, cardTransport(), "every required card field", strings.Join(problems, "; "), ex)
		return
	}
	r.pass(ReqCardRequiredFields, cardTransport(), "every required field is there with its JSON type")
}

// checkDefaults reports the 0.3 fields a card leaves to their defaults
// (0.3 §5.5: protocolVersion 0.3.0, preferredTransport JSONRPC), which the
// rest of the suite assumes.
func (r *run) checkDefaults(info *cardInfo, ex Exchange) {
	raw := info.raw
	if jsonStr(raw["url"]) == "" {
		r.skip(ReqCardDefaults, cardTransport(), "not a 0.3 card (no url)")
		return
	}
	var missing []string
	if v, ok := raw["protocolVersion"]; (!ok || string(v) == "null") && raw["supportedInterfaces"] == nil {
		missing = append(missing, "no protocolVersion (0.3.0 assumed)")
	}
	if v, ok := raw["preferredTransport"]; !ok || string(v) == "null" {
		missing = append(missing, "no preferredTransport (JSONRPC assumed)")
	}
	if len(missing) > 0 {
		r.fail(ReqCardDefaults, cardTransport(), "protocolVersion and preferredTransport stated in the card", strings.Join(missing, "; "), ex)
		return
	}
	r.pass(ReqCardDefaults, cardTransport(), "protocolVersion and preferredTransport are stated")
}

func (r *run) checkSkills(info *cardInfo, ex Exchange) {
	var skills []map[string]json.RawMessage
	if json.Unmarshal(info.raw["skills"], &skills) != nil || jsonType(info.raw["skills"]) != "array" {
		r.skip(ReqCardSkills, cardTransport(), "skills is not an array of objects (see "+ReqCardRequiredFields+")")
		return
	}
	var problems []string
	seen := map[string]bool{}
	for i, s := range skills {
		name := fmt.Sprintf("skills[%d]", i)
		if s == nil {
			problems = append(problems, name+" is not an object")
			continue
		}
		id := jsonStr(s["id"])
		if id != "" {
			name = fmt.Sprintf("skill %q", truncateText(id, 40))
		}
		for _, key := range []string{"id", "name", "description"} {
			if jsonType(s[key]) != "string" || jsonStr(s[key]) == "" {
				problems = append(problems, fmt.Sprintf("%s has no %s", name, key))
			}
		}
		if tags, ok := stringArray(s["tags"]); !ok {
			problems = append(problems, fmt.Sprintf("%s has no tags array", name))
		} else if len(tags) == 0 {
			problems = append(problems, fmt.Sprintf("%s has an empty tags array", name))
		}
		for _, key := range []string{"inputModes", "outputModes", "examples"} {
			if v, ok := s[key]; ok && string(v) != "null" {
				if _, ok := stringArray(v); !ok {
					problems = append(problems, fmt.Sprintf("%s: %s is not an array of strings", name, key))
				}
			}
		}
		if id != "" {
			if seen[id] {
				problems = append(problems, fmt.Sprintf("skill id %q appears twice", truncateText(id, 40)))
			}
			seen[id] = true
		}
	}
	if len(problems) > 0 {
		r.fail(ReqCardSkills, cardTransport(), "well-formed skills with unique ids", strings.Join(problems, "; "), ex)
		return
	}
	if len(skills) == 0 {
		r.pass(ReqCardSkills, cardTransport(), "no skills: an empty skills array is valid (1.0 §8.4.1)")
		return
	}
	r.pass(ReqCardSkills, cardTransport(), fmt.Sprintf("%d skills, all well formed", len(skills)))
}

func (r *run) checkCapabilities(info *cardInfo, ex Exchange) {
	raw, ok := info.raw["capabilities"]
	caps, isObj := object(raw)
	if !ok || !isObj {
		r.skip(ReqCardCapabilities, cardTransport(), "capabilities is missing or not an object (see "+ReqCardRequiredFields+")")
		return
	}
	var problems []string
	for _, key := range []string{"streaming", "pushNotifications", "extendedAgentCard", "stateTransitionHistory", "skillQuery"} {
		if v, ok := caps[key]; ok && string(v) != "null" && jsonType(v) != "boolean" {
			problems = append(problems, fmt.Sprintf("capabilities.%s is a %s (%s), not a boolean", key, jsonType(v), truncateText(string(v), 20)))
		}
	}
	if v, ok := caps["extensions"]; ok && string(v) != "null" {
		var exts []map[string]json.RawMessage
		if json.Unmarshal(v, &exts) != nil || jsonType(v) != "array" {
			problems = append(problems, "capabilities.extensions is not an array of objects")
		} else {
			for i, e := range exts {
				if e == nil || jsonType(e["uri"]) != "string" || jsonStr(e["uri"]) == "" {
					problems = append(problems, fmt.Sprintf("capabilities.extensions[%d] has no uri", i))
				}
			}
		}
	}
	var streaming bool
	if json.Unmarshal(caps["streaming"], &streaming) == nil {
		info.streaming = streaming
	}
	if len(problems) > 0 {
		r.fail(ReqCardCapabilities, cardTransport(), "boolean capability flags", strings.Join(problems, "; "), ex)
		return
	}
	r.pass(ReqCardCapabilities, cardTransport(), fmt.Sprintf("capabilities well formed (streaming %v)", info.streaming))
}

// checkSecurity checks securitySchemes and the requirements naming them,
// in the 1.0 (securityRequirements, oneof schemes) and 0.3 (security,
// typed schemes) forms.
func (r *run) checkSecurity(info *cardInfo, ex Exchange) {
	raw := info.raw
	var problems []string
	schemes := map[string]bool{}
	if v, ok := raw["securitySchemes"]; ok && string(v) != "null" {
		m, isObj := object(v)
		if !isObj {
			problems = append(problems, "securitySchemes is not an object")
		}
		names := make([]string, 0, len(m))
		for name := range m {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			schemes[name] = true
			if p := schemeProblem(m[name]); p != "" {
				problems = append(problems, fmt.Sprintf("scheme %q: %s", truncateText(name, 40), p))
			}
		}
	}
	var required []string
	for _, key := range []string{"securityRequirements", "security"} {
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			continue
		}
		reqs, isArr := array(v)
		if !isArr {
			problems = append(problems, key+" is not an array")
			continue
		}
		for _, req := range reqs {
			m, isObj := object(req)
			if !isObj {
				problems = append(problems, key+"[] holds a non-object")
				continue
			}
			if inner, ok := object(m["schemes"]); ok && key == "securityRequirements" {
				m = inner // 1.0: {"schemes": {name: {"list": [...]}}}
			}
			for name := range m {
				required = append(required, name)
				if !schemes[name] {
					problems = append(problems, fmt.Sprintf("%s names scheme %q, which securitySchemes does not declare", key, truncateText(name, 40)))
				}
			}
		}
	}
	info.security = len(required) > 0
	switch {
	case len(problems) > 0:
		r.fail(ReqCardSecurity, cardTransport(), "declared, well-formed security schemes", strings.Join(problems, "; "), ex)
	case len(schemes) == 0 && len(required) == 0:
		r.skip(ReqCardSecurity, cardTransport(), "the card declares no security")
	default:
		sort.Strings(required)
		r.pass(ReqCardSecurity, cardTransport(), fmt.Sprintf("%d schemes declared; required: %s", len(schemes), strings.Join(dedupe(required), ", ")))
	}
}

func dedupe(s []string) []string {
	var out []string
	for _, v := range s {
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

// schemeProblem says what is wrong with one security scheme, or "".
func schemeProblem(raw json.RawMessage) string {
	m, ok := object(raw)
	if !ok {
		return "not an object"
	}
	need := func(obj map[string]json.RawMessage, keys ...string) string {
		var missing []string
		for _, k := range keys {
			if obj == nil || jsonType(obj[k]) == "nothing" || string(obj[k]) == "null" || (jsonType(obj[k]) == "string" && jsonStr(obj[k]) == "") {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return "no " + strings.Join(missing, ", ")
		}
		return ""
	}
	// 1.0: a oneof member names the kind.
	oneof := map[string][]string{
		"apiKeySecurityScheme": {"location", "name"}, "httpAuthSecurityScheme": {"scheme"},
		"oauth2SecurityScheme": {"flows"}, "openIdConnectSecurityScheme": {"openIdConnectUrl"}, "mtlsSecurityScheme": nil,
	}
	for key, fields := range oneof {
		if v, ok := m[key]; ok {
			inner, _ := object(v)
			if inner == nil && fields != nil {
				return key + " is not an object"
			}
			return need(inner, fields...)
		}
	}
	// 0.3: "type" names it.
	switch jsonStr(m["type"]) {
	case "apiKey":
		return need(m, "in", "name")
	case "http":
		return need(m, "scheme")
	case "oauth2":
		return need(m, "flows")
	case "openIdConnect":
		return need(m, "openIdConnectUrl")
	case "mutualTLS":
		return ""
	}
	return "neither a 1.0 scheme (apiKeySecurityScheme, httpAuthSecurityScheme, oauth2SecurityScheme, openIdConnectSecurityScheme, mtlsSecurityScheme) nor a 0.3 one (type apiKey, http, oauth2, openIdConnect, mutualTLS)"
}

// normVersion maps a card's protocol version to the versions the suite
// checks, "" for others.
func normVersion(v string) string {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	switch {
	case v == "1" || strings.HasPrefix(v, "1."):
		return version10
	case v == "0.3" || strings.HasPrefix(v, "0.3."):
		return version03
	}
	return ""
}

// normBinding maps a card's binding name to the suite's, "" for others.
func normBinding(b string) string {
	switch strings.ToUpper(strings.TrimSpace(b)) {
	case "JSONRPC", "JSON-RPC":
		return bindingJSONRPC
	case "HTTP+JSON", "REST", "HTTP":
		return bindingREST
	case "GRPC":
		return bindingGRPC
	}
	return ""
}

// gatherInterfaces collects the card's interfaces (1.0 supportedInterfaces;
// 0.3 url, preferredTransport and additionalInterfaces), checks each, and
// chooses those the run checks.
func (r *run) gatherInterfaces(info *cardInfo, ex Exchange) {
	type decl struct{ url, binding, version, where string }
	var decls []decl
	var problems []string
	if v, ok := info.raw["supportedInterfaces"]; ok {
		list, _ := array(v)
		for i, item := range list {
			m, ok := object(item)
			where := fmt.Sprintf("supportedInterfaces[%d]", i)
			if !ok {
				problems = append(problems, where+" is not an object")
				continue
			}
			d := decl{jsonStr(m["url"]), jsonStr(m["protocolBinding"]), jsonStr(m["protocolVersion"]), where}
			for key, val := range map[string]string{"url": d.url, "protocolBinding": d.binding, "protocolVersion": d.version} {
				if val == "" {
					problems = append(problems, fmt.Sprintf("%s has no %s", where, key))
				}
			}
			decls = append(decls, d)
		}
	}
	// What a 0.3 card leaves out is judged with 0.3's defaults (§5.5):
	// preferredTransport JSONRPC, protocolVersion 0.3.0; ReqCardDefaults
	// reports their absence. Mastra, VoltAgent, Gemini CLI's A2A server and
	// tRPC-Agent-Go publish such cards.
	var assumed []string
	if u := jsonStr(info.raw["url"]); u != "" {
		version := jsonStr(info.raw["protocolVersion"])
		preferred := jsonStr(info.raw["preferredTransport"])
		if preferred == "" {
			preferred = bindingJSONRPC // the 0.3 default
			assumed = append(assumed, "no preferredTransport: JSONRPC assumed")
		}
		if version == "" && info.raw["supportedInterfaces"] == nil {
			version = "0.3.0"
			assumed = append(assumed, "no protocolVersion: 0.3.0 assumed")
		}
		decls = append(decls, decl{u, preferred, version, "url"})
		if v, ok := info.raw["additionalInterfaces"]; ok && string(v) != "null" {
			list, isArr := array(v)
			if !isArr {
				problems = append(problems, "additionalInterfaces is not an array")
			}
			for i, item := range list {
				m, _ := object(item)
				where := fmt.Sprintf("additionalInterfaces[%d]", i)
				d := decl{jsonStr(m["url"]), jsonStr(m["transport"]), version, where}
				if d.url == "" || d.binding == "" {
					problems = append(problems, where+" needs url and transport")
					continue
				}
				decls = append(decls, d)
			}
		}
	}
	seen := map[string]bool{}
	var forms []string
	for _, d := range decls {
		if d.url == "" || d.binding == "" || d.version == "" {
			continue
		}
		binding, version := normBinding(d.binding), normVersion(d.version)
		in := Interface{URL: d.url, ProtocolBinding: d.binding, ProtocolVersion: d.version}
		if binding != "" && version != "" {
			in.ProtocolBinding, in.ProtocolVersion = binding, version
		}
		in.Name = in.ProtocolBinding + " " + in.ProtocolVersion
		key := in.Name + " " + in.URL
		if seen[key] {
			continue
		}
		seen[key] = true
		if p := urlProblem(binding, d.url); p != "" {
			problems = append(problems, fmt.Sprintf("%s: %s", d.where, p))
			in.Note = p
		} else if p := urlFormProblem(binding, d.url); p != "" {
			forms = append(forms, fmt.Sprintf("%s: %s", d.where, p))
		}
		switch {
		case in.Note != "":
		case binding == "" || version == "":
			in.Note = "not a binding and version the suite checks (JSONRPC, HTTP+JSON, GRPC at 1.0 or 0.3)"
		case r.o.protocol != ProtocolAuto && Protocol(version) != r.o.protocol:
			in.Note = "protocol " + version + " not asked for"
		case r.o.transport != "" && transportName(binding) != r.o.transport:
			in.Note = "transport " + string(transportName(binding)) + " not asked for"
		default:
			in.Checked = true
		}
		info.interfaces = append(info.interfaces, in)
	}
	r.rep.Interfaces = info.interfaces
	switch {
	case len(forms) > 0:
		r.fail(ReqInterfaceURLs, cardTransport(), "https URLs for HTTP interfaces and host:port for gRPC", strings.Join(forms, "; "), ex)
	case len(info.interfaces) > 0:
		r.pass(ReqInterfaceURLs, cardTransport(), "every interface URL has the specification's form")
	default:
		r.skip(ReqInterfaceURLs, cardTransport(), "no interface to judge")
	}
	switch {
	case len(problems) > 0:
		r.fail(ReqCardInterfaces, cardTransport(), "interfaces with a usable URL, a binding and a version", strings.Join(problems, "; "), ex)
	case len(info.interfaces) == 0:
		r.fail(ReqCardInterfaces, cardTransport(), "at least one interface", "none", ex)
	default:
		names := make([]string, 0, len(info.interfaces))
		for _, in := range info.interfaces {
			names = append(names, in.Name)
		}
		msg := "interfaces: " + strings.Join(names, ", ")
		if len(assumed) > 0 {
			msg += " (" + strings.Join(assumed, "; ") + ")"
		}
		r.pass(ReqCardInterfaces, cardTransport(), msg)
	}
}

func transportName(binding string) Transport {
	switch binding {
	case bindingJSONRPC:
		return TransportJSONRPC
	case bindingREST:
		return TransportREST
	case bindingGRPC:
		return TransportGRPC
	}
	return Transport(strings.ToLower(binding))
}

// urlFormProblem says how a usable interface URL departs from the form
// a2a.proto's AgentInterface.url gives, or "".
func urlFormProblem(binding, raw string) string {
	if binding == bindingGRPC {
		if strings.Contains(raw, "://") {
			return fmt.Sprintf("gRPC URL %q has a scheme; the specification's form is host:port, which gRPC clients dial as is", truncateText(raw, 80))
		}
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || privateHost(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("URL %q is plain http to a public host; HTTP interfaces are https in production", truncateText(raw, 80))
}

// privateHost reports whether host is loopback, private, link-local, or a
// name without dots (a local or container name), where plain http is
// expected.
func privateHost(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified()
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return !strings.Contains(h, ".") || h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal")
}

// urlProblem says why an interface URL cannot be used, or "".
func urlProblem(binding, raw string) string {
	if binding == bindingGRPC {
		if _, _, err := agentdial.GRPCTarget(raw); err != nil {
			return err.Error()
		}
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("URL %q is not an absolute http(s) URL", truncateText(raw, 80))
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil && strings.Contains(u.Host, "::") && !strings.HasPrefix(u.Host, "[") {
		return fmt.Sprintf("URL %q has an unbracketed IPv6 host", truncateText(raw, 80))
	}
	return ""
}
