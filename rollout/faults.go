package rollout

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/result"
)

// Faults corrupts a share of the agent's tool results, to see whether the
// agent notices (proctor run --tool-faults): the environment runs every
// call truly, so the final database, and every reward basis, is the true
// one; only what the agent is told is wrong. Which calls are corrupted,
// and how, follows from Seed, the task, the trial and the call's place in
// the simulation, so the same evaluation corrupts the same calls again.
type Faults struct {
	// Rate is the share of tool results corrupted, 0 to 1.
	Rate float64
	// Seed makes another choice of calls and kinds.
	Seed int64
}

// faultKinds are the kinds a corrupted result is drawn from, in order.
func faultKinds() []result.FaultKind {
	return []result.FaultKind{result.FaultError, result.FaultStale, result.FaultTruncated, result.FaultWrongRecord}
}

// corrupt decides whether the n-th agent call (from 0) of a simulation of
// taskID and trial is corrupted, and corrupts out; the kind is "" when it
// is left alone. A refused or failed call is never corrupted.
func (f Faults) corrupt(taskID string, trial, n int, out domains.ToolResult) (domains.ToolResult, result.FaultKind) {
	if f.Rate <= 0 || out.Error {
		return out, ""
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%d\x00%s\x00%d\x00%d", f.Seed, taskID, trial, n))
	rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(h[:8]), binary.LittleEndian.Uint64(h[8:16])))
	if rng.Float64() >= f.Rate {
		return out, ""
	}
	kind := faultKinds()[rng.IntN(len(faultKinds()))]
	switch kind {
	case result.FaultError:
		return domains.ToolResult{Content: "Error: the service is temporarily unavailable; try again later", Error: true}, kind
	case result.FaultStale, result.FaultWrongRecord:
		if content, ok := alterJSON(out.Content, kind); ok {
			return domains.ToolResult{Content: content}, kind
		}
	}
	return domains.ToolResult{Content: truncate(out.Content)}, result.FaultTruncated
}

// truncate cuts a result to its first half, as a response cut short would
// be.
func truncate(s string) string {
	r := []rune(s)
	return string(r[:len(r)/2])
}

// alterJSON changes one value of a JSON result: for a stale value the
// first number (in key order, depth first) is lowered as an out-of-date
// reading would be; for a wrong record the first identifier (a string
// under a key "id" or ending in "_id") names another record. ok is false
// when the result has no such value.
func alterJSON(content string, kind result.FaultKind) (string, bool) {
	var v any
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	changed := false
	v = alterValue(v, "", kind, &changed)
	if !changed {
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}

func alterValue(v any, key string, kind result.FaultKind, changed *bool) any {
	if *changed {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x[k] = alterValue(x[k], k, kind, changed)
		}
	case []any:
		for i := range x {
			x[i] = alterValue(x[i], key, kind, changed)
		}
	case json.Number:
		if kind == result.FaultStale {
			if f, err := x.Float64(); err == nil {
				*changed = true
				return json.Number(fmt.Sprint(staleNumber(f)))
			}
		}
	case string:
		if kind == result.FaultWrongRecord && (key == "id" || strings.HasSuffix(key, "_id")) && x != "" {
			*changed = true
			return otherID(x)
		}
	}
	return v
}

// staleNumber is an earlier reading of v: lower by a tenth (at least 1).
func staleNumber(v float64) float64 {
	d := max(v/10, 1)
	if v == float64(int64(v)) {
		return v - float64(int64(d))
	}
	return v - d
}

// otherID names another record than id: its last character moved on.
func otherID(id string) string {
	r := []rune(id)
	last := r[len(r)-1]
	switch {
	case last >= '0' && last < '9', last >= 'a' && last < 'z', last >= 'A' && last < 'Z':
		r[len(r)-1] = last + 1
	case last == '9':
		r[len(r)-1] = '0'
	case last == 'z':
		r[len(r)-1] = 'a'
	case last == 'Z':
		r[len(r)-1] = 'A'
	default:
		r = append(r, 'X')
	}
	return string(r)
}
