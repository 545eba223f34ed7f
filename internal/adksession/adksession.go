// Package adksession bounds the ADK sessions a long-running agent keeps.
// ADK's in-memory session service keeps every session until it is
// deleted, and ADK's A2A executor creates one per conversation (A2A
// context) and never deletes it: proctor serve's chat agent and the
// reference agent's LLM baseline would grow for as long as they run.
package adksession

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/adk/session"
)

// MaxSessions is the default bound of a [Bounded] service: the sessions
// (conversations) an agent keeps. A session holds its conversation's
// events: one of a first message of some 2.5 KB and its reply takes about
// 4.6 KB of heap, so the bound caps such sessions at some 45 MB (a longer
// conversation takes more: each turn adds its messages).
const MaxSessions = 10000

// Bounded is a session.Service that keeps at most a bound of sessions in
// ADK's in-memory service, forgetting the least recently used first. A
// session is used when it is created or an event is appended to it (every
// turn of a conversation appends its messages); reading it (Get, List)
// does not count. A forgotten session is deleted from the in-memory
// service, so its memory is freed, and answers as one that never existed:
// Get and AppendEvent wrap session.ErrNotFound, List leaves it out, and
// ADK's A2A executor starts the conversation afresh in a new session. As
// in ADK, a session is named by its app, user and session id.
type Bounded struct {
	inner session.Service
	max   int

	mu    sync.Mutex // held across the inner service's writes, so order matches it
	byKey map[key]*list.Element
	order *list.List // of key, most recently used first
}

var _ session.Service = (*Bounded)(nil)

// key names a session as ADK's in-memory service does.
type key struct{ app, user, id string }

// keyOf is the key of s.
func keyOf(s session.Session) key { return key{app: s.AppName(), user: s.UserID(), id: s.ID()} }

// NewBounded returns an empty in-memory service that keeps at most bound
// sessions (at least one; 0 or less means [MaxSessions]).
func NewBounded(bound int) *Bounded {
	if bound <= 0 {
		bound = MaxSessions
	}
	return &Bounded{inner: session.InMemoryService(), max: bound, byKey: make(map[key]*list.Element), order: list.New()}
}

// Len is the number of sessions kept.
func (b *Bounded) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.order.Len()
}

// Create implements session.Service: it creates the session as the most
// recently used and forgets the least recently used beyond the bound.
func (b *Bounded) Create(ctx context.Context, req *session.CreateRequest) (*session.CreateResponse, error) {
	if req == nil {
		return nil, errors.New("adksession: no create request")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	resp, err := b.inner.Create(ctx, req)
	if err != nil {
		return nil, err
	}
	k := keyOf(resp.Session)
	if el, ok := b.byKey[k]; ok { // not from the in-memory service, which refuses a second create
		b.order.MoveToFront(el)
		return resp, nil
	}
	b.byKey[k] = b.order.PushFront(k)
	return resp, b.evict(ctx)
}

// evict forgets the least recently used sessions beyond the bound. b.mu
// must be held.
func (b *Bounded) evict(ctx context.Context) error {
	for b.order.Len() > b.max {
		oldest := b.order.Remove(b.order.Back()).(key)
		delete(b.byKey, oldest)
		err := b.inner.Delete(ctx, &session.DeleteRequest{AppName: oldest.app, UserID: oldest.user, SessionID: oldest.id})
		if err != nil {
			return fmt.Errorf("adksession: forget session %q of app %q, user %q: %w", oldest.id, oldest.app, oldest.user, err)
		}
	}
	return nil
}

// Get implements session.Service; it does not count as a use.
func (b *Bounded) Get(ctx context.Context, req *session.GetRequest) (*session.GetResponse, error) {
	return b.inner.Get(ctx, req)
}

// List implements session.Service.
func (b *Bounded) List(ctx context.Context, req *session.ListRequest) (*session.ListResponse, error) {
	return b.inner.List(ctx, req)
}

// Delete implements session.Service.
func (b *Bounded) Delete(ctx context.Context, req *session.DeleteRequest) error {
	if req == nil {
		return errors.New("adksession: no delete request")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.inner.Delete(ctx, req); err != nil {
		return err
	}
	k := key{app: req.AppName, user: req.UserID, id: req.SessionID}
	if el, ok := b.byKey[k]; ok {
		b.order.Remove(el)
		delete(b.byKey, k)
	}
	return nil
}

// AppendEvent implements session.Service: the session becomes the most
// recently used.
func (b *Bounded) AppendEvent(ctx context.Context, s session.Session, event *session.Event) error {
	if s == nil {
		return errors.New("adksession: no session to append to")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.inner.AppendEvent(ctx, s, event); err != nil {
		return err
	}
	if el, ok := b.byKey[keyOf(s)]; ok {
		b.order.MoveToFront(el)
	}
	return nil
}
