package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/proctor-eval/proctor/store"
)

// BearerScheme names the card's security scheme when tokens are required.
const BearerScheme a2a.SecuritySchemeName = "bearer"

// requireBearer says in the card that a bearer token is required, so that
// clients (and a2a-go's AuthInterceptor) know to send one.
func requireBearer(card *a2a.AgentCard) {
	card.SecuritySchemes = a2a.NamedSecuritySchemes{BearerScheme: a2a.HTTPAuthSecurityScheme{
		Scheme: "Bearer", Description: "a token given to you by this proctor's operator",
	}}
	card.SecurityRequirements = a2a.SecurityRequirementsOptions{{BearerScheme: a2a.SecuritySchemeScopes{}}}
}

// limit bounds request bodies.
func (s *Server) limit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxRequestBytes {
			http.Error(w, fmt.Sprintf("request body larger than %d bytes", s.cfg.MaxRequestBytes), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxRequestBytes)
		next.ServeHTTP(w, r)
	})
}

// authenticate requires one of the configured bearer tokens, and marks
// the connection of a request that has one authenticated (connLimits;
// without tokens, every A2A request does). A request without one gets 401
// with a WWW-Authenticate challenge, and on JSON-RPC paths the JSON-RPC
// error a2a-go uses for unauthenticated calls (-31401); its connection is
// closed after the answer.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(s.tokens) == 0 {
			markAuthenticated(r.Context())
			next.ServeHTTP(w, r)
			return
		}
		if tenant, ok := s.tokenOK(r.Header.Get("Authorization")); ok {
			markAuthenticated(r.Context())
			noteTenant(r.Context(), tenant.Name)
			next.ServeHTTP(w, r.WithContext(store.WithTenant(r.Context(), tenant)))
			return
		}
		// A refused caller's connection is not kept: it holds no slot.
		w.Header().Set("Connection", "close")
		w.Header().Set("WWW-Authenticate", `Bearer realm="proctor"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		if isJSONRPCPath(r.URL.Path) {
			var req struct {
				ID any `json:"id"`
			}
			_ = json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -31401, "message": "unauthenticated: a valid bearer token is required"}})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"code": http.StatusUnauthorized, "status": "UNAUTHENTICATED", "message": "a valid bearer token is required"}})
	})
}

// tokenOK returns the tenant of the token an Authorization header holds,
// if it holds one of the tokens.
func (s *Server) tokenOK(header string) (store.Tenant, bool) {
	// RFC 7235: the scheme is case-insensitive ("bearer" is "Bearer"), and
	// one or more spaces separate it from the credentials.
	scheme, token, ok := strings.Cut(header, " ")
	token = strings.TrimLeft(token, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return store.Tenant{}, false
	}
	return s.tokens.lookup(token)
}

// grpcAuth requires one of the tokens in a gRPC call's metadata, and
// returns the call's context acting for its tenant. The connection of a
// call that has one is authenticated (connLimits).
func (s *Server) grpcAuth(ctx context.Context) (context.Context, error) {
	ctx, ok := s.grpcTenant(ctx)
	if !ok {
		return ctx, status.Error(codes.Unauthenticated, "a valid bearer token is required")
	}
	if p, ok := peer.FromContext(ctx); ok {
		s.conns.authenticateAddrs(p.LocalAddr, p.Addr)
	}
	noteTenant(ctx, tenantOf(ctx))
	return ctx, nil
}

// grpcTenant returns ctx acting for the tenant of the token in a gRPC
// call's metadata, and whether it holds one of the tokens (or the server
// requires none).
func (s *Server) grpcTenant(ctx context.Context) (context.Context, bool) {
	if len(s.tokens) == 0 {
		return ctx, true
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if tenant, ok := s.tokenOK(v); ok {
			return store.WithTenant(ctx, tenant), true
		}
	}
	return ctx, false
}

// tenantStream is a gRPC stream whose context acts for its caller's
// tenant.
type tenantStream struct {
	grpc.ServerStream
	ctx context.Context
}

// Context returns the stream's context, with its tenant.
func (s tenantStream) Context() context.Context { return s.ctx }
