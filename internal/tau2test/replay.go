package tau2test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Replay is a domain's expected_replay.json: for every task, what tau2's own
// code produced when replaying its expected actions on a fresh environment.
type Replay struct {
	FreshDBHash     string       `json:"fresh_db_hash"`
	FreshUserDBHash string       `json:"fresh_user_db_hash"`
	Tasks           []ReplayTask `json:"tasks"`
}

// ReplayTask is one task's replay.
type ReplayTask struct {
	TaskID         string         `json:"task_id"`
	Actions        []ReplayAction `json:"actions"`
	GoldDBHash     string         `json:"gold_db_hash"`
	GoldUserDBHash string         `json:"gold_user_db_hash"`
	// EnvAssertionsOnGold are the task's env assertions run on the gold
	// environment; nil when the task has none.
	EnvAssertionsOnGold *[]bool `json:"env_assertions_on_gold"`
	// RewardBasis is the task's reward basis as tau2 read it.
	RewardBasis []string `json:"reward_basis"`
}

// ReplayAction is one replayed action: tau2's tool message and error flag.
type ReplayAction struct {
	ActionID  string `json:"action_id"`
	Requestor string `json:"requestor"`
	Name      string `json:"name"`
	Error     bool   `json:"error"`
	Content   string `json:"content"`
}

// LoadReplay reads the expected_replay.json in a domain's data directory.
func LoadReplay(tb testing.TB, dir string) Replay {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "expected_replay.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var r Replay
	if err := json.Unmarshal(raw, &r); err != nil {
		tb.Fatalf("expected_replay.json: %v", err)
	}
	return r
}

// SameValue compares tool outputs as JSON values (key order, spacing and 50
// against 50.0 do not matter); content that is not JSON must be equal.
func SameValue(got, want string) bool {
	var g, w any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return got == want
	}
	return reflect.DeepEqual(g, w)
}

// SameLiterals is SameValue with numbers compared by their literal, so that
// 150.0 and 150 differ, as a Python float and int do.
func SameLiterals(got, want string) bool {
	g, gerr := DecodeLiterals(got)
	w, werr := DecodeLiterals(want)
	if gerr != nil || werr != nil {
		return got == want
	}
	return reflect.DeepEqual(g, w)
}

// DecodeLiterals decodes one JSON value with numbers kept as their literals
// (json.Number).
func DecodeLiterals(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, bytes.ErrTooLarge
	}
	return v, nil
}
