package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// errBodyTimeout reports a request body that did not arrive within
// Config.BodyTimeout. It wraps os.ErrDeadlineExceeded.
type errBodyTimeout struct {
	limit time.Duration
	err   error
}

func (e *errBodyTimeout) Error() string {
	return fmt.Sprintf("the request body did not arrive within %s; send it faster or in a smaller request", e.limit)
}

func (e *errBodyTimeout) Unwrap() error { return e.err }

// bodyDeadline bounds the time a request's body may take to arrive: the
// connection's read deadline is set for it and lifted once the body has
// been read, so that what the handler writes afterwards (a stream, which
// may last as long as an evaluation) is never cut short. A body that is
// late fails to read with an *errBodyTimeout, which limitDepth answers
// with 408.
func (s *Server) bodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)); err != nil {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, limit: s.cfg.BodyTimeout,
			lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody is a request body read under a deadline, which it lifts
// once the body has been read whole.
type deadlineBody struct {
	io.ReadCloser
	limit time.Duration
	lift  func()
	once  sync.Once
}

// Read implements io.Reader.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return n, &errBodyTimeout{limit: b.limit, err: err}
	case err != nil:
		b.once.Do(b.lift)
	}
	return n, err
}

// bodyError answers a request whose body could not be read: 413 for one
// over the size limit, 408 for one too slow, 400 otherwise.
func bodyError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	var late *errBodyTimeout
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("request body larger than %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
	case errors.As(err, &late):
		w.Header().Set("Connection", "close")
		http.Error(w, late.Error(), http.StatusRequestTimeout)
	default:
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
	}
}
