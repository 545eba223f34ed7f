package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/proctor-eval/proctor/a2aclient"
)

// Bounds on reading a wire trace (proctor run --trace-wire), a file the
// viewer did not write and does not trust.
const (
	// maxWireFile is how much of a trace file is read; the rest is left
	// out, and the page says so.
	maxWireFile = 64 << 20
	// maxWireLine bounds one record: a 64 KiB body escaped as JSON and
	// its headers fit many times over.
	maxWireLine = 1 << 20
	// maxWireExchanges is how many exchanges of one conversation the
	// page shows.
	maxWireExchanges = 300
	// maxWireBody is how much of a body or event the page shows.
	maxWireBody = 8 << 10
)

// wireKinds are the record kinds a trace may hold.
var wireKinds = []a2aclient.WireKind{a2aclient.WireRequest, a2aclient.WireResponse, a2aclient.WireEvent, a2aclient.WireEnd, a2aclient.WireError}

// wireStep is one record of an exchange, as the page shows it.
type wireStep struct {
	Kind      string
	Time      time.Time
	ElapsedMS float64
	Status    int
	GRPCCode  string
	Headers   []string
	Body      string
	BodyBytes int64
	// Cut says the body was cut, in the trace or for the page.
	Cut   bool
	Error string
}

// wireExchange is one request to the agent and what came back.
type wireExchange struct {
	N                      int64
	Transport, Method, URL string
	Status                 int
	GRPCCode, Error        string
	ElapsedMS              float64
	Events                 int
	Steps                  []wireStep
}

// wireView is the wire trace beside a conversation.
type wireView struct {
	Path      string
	Exchanges []wireExchange
	// More counts exchanges left out; Note says why nothing, or not
	// everything, is shown.
	More int
	Note string
}

// loadWireTrace reads the exchanges of conversation contextID from the
// trace file at path. A missing file is not an error: the page says none
// was recorded there.
func loadWireTrace(path, contextID string) *wireView {
	v := &wireView{Path: path}
	if contextID == "" {
		v.Note = "this simulation has no A2A context id to find its exchanges by"
		return v
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		v.Note = "no wire trace at " + path + " (record one with proctor run --trace-wire)"
		return v
	}
	if err != nil {
		v.Note = "the wire trace cannot be read: " + err.Error()
		return v
	}
	defer f.Close()
	exs, more, cut, err := readWireTrace(io.LimitReader(f, maxWireFile+1), contextID)
	v.Exchanges, v.More = exs, more
	switch {
	case err != nil:
		v.Note = fmt.Sprintf("the wire trace %s is not one proctor wrote: %v", path, err)
	case cut:
		v.Note = fmt.Sprintf("the wire trace is larger than %d MiB: only its first part was read", maxWireFile>>20)
	case len(exs) == 0:
		v.Note = "the wire trace holds no exchange of this conversation (context " + contextID + ")"
	}
	return v
}

// readWireTrace decodes a wire trace, one JSON record a line, strictly:
// an unknown field, an unknown kind, a line too long or anything after a
// record's object is an error naming the line. It keeps the exchanges of
// conversation contextID, at most maxWireExchanges (more counts the
// rest), in the order their requests were recorded. cut says the reader
// held more than maxWireFile bytes; what came before is returned.
func readWireTrace(r io.Reader, contextID string) (exs []wireExchange, more int, cut bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxWireLine)
	index := map[int64]int{}
	read := 0
	for line := 1; sc.Scan(); line++ {
		raw := sc.Bytes()
		read += len(raw) + 1
		if read > maxWireFile {
			return exs, more, true, nil
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		rec, err := decodeWireRecord(raw)
		if err != nil {
			return exs, more, false, fmt.Errorf("line %d: %w", line, err)
		}
		if rec.ContextID != contextID {
			continue
		}
		i, ok := index[rec.Exchange]
		if !ok {
			if len(exs) == maxWireExchanges {
				more++
				index[rec.Exchange] = -1
				continue
			}
			i = len(exs)
			index[rec.Exchange] = i
			exs = append(exs, wireExchange{N: rec.Exchange, Transport: rec.Transport, Method: rec.Method, URL: rec.URL})
		}
		if i >= 0 {
			exs[i].add(rec)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return exs, more, false, fmt.Errorf("a record is longer than %d KiB", maxWireLine>>10)
		}
		return exs, more, false, err
	}
	return exs, more, false, nil
}

// decodeWireRecord decodes one line strictly.
func decodeWireRecord(raw []byte) (a2aclient.WireRecord, error) {
	var rec a2aclient.WireRecord
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return rec, fmt.Errorf("not a wire record: %w", err)
	}
	if dec.More() {
		return rec, errors.New("not a wire record: more after the object")
	}
	if !slices.Contains(wireKinds, rec.Kind) {
		return rec, fmt.Errorf("unknown record kind %q", rec.Kind)
	}
	if rec.Exchange < 1 {
		return rec, fmt.Errorf("exchange %d: want a number from 1", rec.Exchange)
	}
	return rec, nil
}

// add folds one record into its exchange.
func (e *wireExchange) add(rec a2aclient.WireRecord) {
	st := wireStep{Kind: string(rec.Kind), Time: rec.Time, ElapsedMS: rec.ElapsedMS, Status: rec.Status, GRPCCode: rec.GRPCCode,
		Headers: headerLines(rec.Headers), BodyBytes: rec.BodyBytes, Cut: rec.Truncated, Error: rec.Error}
	st.Body = rec.Body
	if len(st.Body) > maxWireBody {
		st.Body, st.Cut = strings.ToValidUTF8(st.Body[:maxWireBody], "")+"…", true
	}
	switch rec.Kind {
	case a2aclient.WireResponse:
		e.Status = rec.Status
	case a2aclient.WireEvent:
		e.Events++
	case a2aclient.WireEnd, a2aclient.WireError:
		e.ElapsedMS, e.Error = rec.ElapsedMS, rec.Error
		if rec.GRPCCode != "" {
			e.GRPCCode = rec.GRPCCode
		}
	}
	e.Steps = append(e.Steps, st)
}

// headerLines renders headers as "Name: value" lines in name order, the
// values of credential headers redacted whatever the trace holds.
func headerLines(h map[string][]string) []string {
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []string
	for _, n := range names {
		for _, v := range h[n] {
			if a2aclient.IsCredentialHeader(n) {
				v = a2aclient.Redacted
			}
			out = append(out, n+": "+v)
		}
	}
	return out
}
