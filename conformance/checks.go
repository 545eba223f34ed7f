package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/grpc/codes"
)

// check runs the whole suite against the agent at u.
func (r *run) check(ctx context.Context, u *url.URL) {
	info := r.fetchCard(ctx, u)
	if info == nil {
		return
	}
	var checked []string
	var answering []caller
	for _, in := range info.interfaces {
		if !in.Checked {
			continue
		}
		checked = append(checked, in.Name)
		c, err := r.newCaller(in)
		if err != nil {
			r.failMsg(ReqInterfaceAnswers, []string{in.Name}, err.Error())
			continue
		}
		defer c.close()
		if r.checkInterface(ctx, info, c, in) {
			answering = append(answering, c)
		}
	}
	if len(checked) == 0 {
		return
	}
	if !info.streaming {
		for _, id := range []string{ReqStreamHTTP, ReqStreamFirstEvent, ReqStreamOrder, ReqStreamFinal, ReqStreamClosed, ReqSubscribe, ReqSubscribeDone, ReqStreamDisconnect} {
			r.skip(id, checked, "the card does not declare capabilities.streaming")
		}
	}
	if !info.security && r.o.token == "" {
		for _, id := range []string{ReqAuthRequired, ReqAuthChallenge, ReqAuthDeclared} {
			if !r.hasResult(id) {
				r.skip(id, checked, "the card declares no security and no token was given")
			}
		}
	}
	r.checkEquivalence(checked)
	r.checkSurvives(ctx, u, answering)
}

func (r *run) hasResult(id string) bool {
	for _, res := range r.rep.Results {
		if res.ID == id {
			return true
		}
	}
	return false
}

func (r *run) newCaller(in Interface) (caller, error) {
	limits := streamLimits{maxEvents: 1000, maxBytes: r.o.maxResponseBytes}
	switch in.ProtocolBinding {
	case bindingJSONRPC:
		return newJSONRPCCaller(r.p, in, limits, r.o.taskTimeout), nil
	case bindingREST:
		return newRESTCaller(r.p, in, limits, r.o.taskTimeout), nil
	}
	return newGRPCCaller(r.p, r.o, in, limits, r.o.taskTimeout)
}

// answered reports whether a reply is an A2A answer (even an error, even a
// refusal for lack of credentials), as opposed to nothing or something
// that is not A2A at all.
func answered(rep reply, binding string) bool {
	if rep.status == http.StatusUnauthorized || rep.status == http.StatusForbidden {
		return true
	}
	switch binding {
	case bindingJSONRPC:
		return rep.rpcErr != nil || rep.obj != nil
	case bindingGRPC:
		return rep.isGRPC && (rep.obj != nil || (rep.fail == nil && rep.grpcCode != codes.Unimplemented)) // the service is not served
	}
	ct := mediaType(rep.ex.ContentType)
	return rep.obj != nil || (rep.fail == nil && rep.status >= 400 && (strings.HasSuffix(ct, "json") || strings.HasSuffix(ct, "+json")))
}

// refusedForAuth reports whether a call was refused for lack of
// credentials.
func refusedForAuth(rep reply) bool {
	switch {
	case rep.status == http.StatusUnauthorized || rep.status == http.StatusForbidden:
		return true
	case rep.rpcErr != nil && rep.rpcErr.CodeOK && (rep.rpcErr.Code == -31401 || rep.rpcErr.Code == -31403):
		return true
	case rep.isGRPC && rep.fail == nil && (rep.grpcCode == codes.Unauthenticated || rep.grpcCode == codes.PermissionDenied):
		return true
	}
	return false
}

// checkInterface checks one interface; it reports whether the interface
// answered at all.
func (r *run) checkInterface(ctx context.Context, info *cardInfo, c caller, in Interface) bool {
	tr := []string{in.Name}
	nf := c.get(ctx, unknownTaskID(), nil)
	if !answered(nf, in.ProtocolBinding) {
		r.fail(ReqInterfaceAnswers, tr, "an A2A answer at "+in.URL, nf.describe(), nf.ex)
		return false
	}
	r.pass(ReqInterfaceAnswers, tr, "answers at "+in.URL)
	if refusedForAuth(nf) && r.o.token == "" {
		r.checkAuthReply(info, in, nf)
		r.skip(ReqSendMessage, tr, "every call is refused without credentials; give an auth token to check the rest")
		return true
	}
	if errTaskNotFound().matches(nf, in.ProtocolBinding) {
		r.pass(ReqTaskNotFound, tr, "an unknown task id gets "+errTaskNotFound().describe(in.ProtocolBinding))
	} else {
		r.fail(ReqTaskNotFound, tr, errTaskNotFound().describe(in.ProtocolBinding), nf.describe(), nf.ex)
	}
	lc := r.checkLifecycle(ctx, c, in)
	r.checkRunning(ctx, info, c, in, lc)
	if info.streaming {
		r.checkStreams(ctx, c, in, lc)
	}
	r.checkMultiTurn(ctx, c, in, lc)
	r.checkListTasks(ctx, info, c, in)
	r.checkVersions(ctx, info, c, in, nf)
	r.checkErrors(ctx, c, in)
	if info.security || r.o.token != "" {
		r.checkAuthReply(info, in, c.getWithoutAuth(ctx, unknownTaskID()))
	}
	if jc, ok := c.(*jsonrpcCaller); ok {
		if issues := jc.envelopeIssues(); len(issues) > 0 {
			var msgs []string
			var exs []Exchange
			for _, is := range issues {
				if !contains(msgs, is.problem) {
					msgs = append(msgs, is.problem)
					exs = append(exs, is.ex)
				}
			}
			r.failMsg(ReqJSONRPCEnvelope, tr, "JSON-RPC responses deviate: "+strings.Join(msgs, "; "), exs[:min(len(exs), 3)]...)
		} else {
			r.pass(ReqJSONRPCEnvelope, tr, "every response was a JSON-RPC 2.0 response echoing the request id")
		}
	}
	return true
}

// checkAuthReply judges a call made without credentials.
func (r *run) checkAuthReply(info *cardInfo, in Interface, u reply) {
	tr := []string{in.Name}
	refused := refusedForAuth(u)
	switch {
	case info.security && refused:
		r.pass(ReqAuthRequired, tr, "a call without credentials is refused: "+u.describe())
		r.pass(ReqAuthDeclared, tr, "the card declares the security it enforces")
	case info.security:
		r.fail(ReqAuthRequired, tr, "a refusal (HTTP 401/403, gRPC UNAUTHENTICATED)", u.describe()+" without credentials", u.ex)
	case refused:
		r.fail(ReqAuthDeclared, tr, "securitySchemes and securityRequirements in the card", "a card without security for an agent that refuses calls without credentials", u.ex)
	default:
		r.skip(ReqAuthRequired, tr, "the card declares no security and calls without credentials are accepted")
	}
	if u.status == http.StatusUnauthorized {
		if u.header.Get("WWW-Authenticate") != "" {
			r.pass(ReqAuthChallenge, tr, "the 401 carries WWW-Authenticate: "+truncateText(u.header.Get("WWW-Authenticate"), 60))
		} else {
			r.fail(ReqAuthChallenge, tr, "a WWW-Authenticate header on the 401", "none", u.ex)
		}
	}
}

// checkEquivalence compares the basic message's outcomes across
// interfaces.
func (r *run) checkEquivalence(checked []string) {
	if len(r.samples) < 2 {
		r.skip(ReqEquivalentResult, checked, "fewer than two interfaces answered the basic message")
		return
	}
	var names, lines []string
	same := true
	for _, s := range r.samples {
		names = append(names, s.iface)
		lines = append(lines, s.iface+": "+s.what)
		if s.kind != r.samples[0].kind || s.state != r.samples[0].state {
			same = false
		}
	}
	if same {
		r.pass(ReqEquivalentResult, names, "every interface answered the same message with "+r.samples[0].what)
		return
	}
	r.failMsg(ReqEquivalentResult, names, "the same message got different answers: "+strings.Join(lines, "; "))
}

// checkSurvives checks that the agent still answers after everything.
func (r *run) checkSurvives(ctx context.Context, u *url.URL, answering []caller) {
	primary, _ := cardURLs(u)
	ans, ex, err := r.p.do(ctx, "HTTP", httpRequest{method: http.MethodGet, url: r.rep.CardURL})
	if r.rep.CardURL == "" {
		ans, ex, err = r.p.do(ctx, "HTTP", httpRequest{method: http.MethodGet, url: primary})
	}
	if err != nil || ans.Status != http.StatusOK {
		got := "no answer"
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprintf("HTTP %d", ans.Status)
		}
		r.fail(ReqServerSurvives, []string{"HTTP"}, "the agent card, as at the start", got, ex)
		return
	}
	for _, c := range answering {
		g := c.get(ctx, unknownTaskID(), nil)
		if !g.isError() && g.obj == nil {
			r.fail(ReqServerSurvives, []string{g.ex.Transport}, "an answer to GetTask", g.describe(), g.ex)
			return
		}
	}
	r.pass(ReqServerSurvives, []string{"HTTP"}, "the agent still answers after every probe")
}
