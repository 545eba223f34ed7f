package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/proctor-eval/proctor/domains"
)

// debitAndAccountTools are the discoverable tools of debit*.go and
// accounts*.go.
var debitAndAccountTools = []string{
	"activate_debit_card_8292", "clear_debit_card_fraud_alert_4892", "close_debit_card_4721",
	"file_debit_card_transaction_dispute_6281", "freeze_debit_card_3892", "unfreeze_debit_card_3893",
	"order_debit_card_5739", "reset_debit_card_pin_6284", "request_temporary_debit_card_limit_increase_8374",
	"get_debit_cards_by_account_id_7823", "get_debit_dispute_status_7483", "get_pending_replacement_orders_5765",
	"open_bank_account_4821", "close_bank_account_7392", "transfer_funds_between_bank_accounts_7291",
	"get_bank_account_transactions_9173", "get_all_user_accounts_by_user_id_3847", "apply_checking_account_credit_5829",
	"apply_savings_account_credit_6831", "submit_interest_discrepancy_report_7294",
}

// TestDebitAndAccountToolsAsTau2 replays the gold trajectories and wants
// every call of a debit card or bank account tool to answer exactly what
// tau2's answered, in the tasks whose tools are all ported (in the others
// an unported tool's missing effect may show in a later answer).
func TestDebitAndAccountToolsAsTau2(t *testing.T) {
	d, want := testDomain(t), loadFixture(t)
	checked := 0
	for _, wt := range want.Tasks {
		task, ok := d.Task(wt.TaskID)
		if !ok || !allPorted(task) {
			continue
		}
		env, err := d.NewEnv(task)
		if err != nil {
			t.Fatalf("task %s: %v", wt.TaskID, err)
		}
		for i, a := range task.EvaluationCriteria.Actions {
			res := env.Call(domains.ToolCall{Name: a.Name, Arguments: a.Arguments, Requestor: a.Requestor})
			name, _ := a.Arguments["agent_tool_name"].(string)
			if a.Name != "call_discoverable_agent_tool" || !slices.Contains(debitAndAccountTools, name) {
				continue
			}
			checked++
			sum := sha256.Sum256([]byte(res.Content))
			if w := wt.Actions[i]; res.Error != w.Error || hex.EncodeToString(sum[:]) != w.ContentSHA256 {
				t.Errorf("%s %s: answer differs from tau2's (error %v):\n%s", w.ActionID, name, res.Error, res.Content)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no gold call of a debit card or bank account tool was checked")
	}
	t.Logf("%d gold calls of debit card and bank account tools checked", checked)
}

func TestPyStrptime(t *testing.T) {
	date := func(y, m, d, hh, mm, ss int) time.Time {
		return time.Date(y, time.Month(m), d, hh, mm, ss, 0, time.UTC)
	}
	tests := []struct {
		in       string
		withTime bool
		want     time.Time
		ok       bool
	}{ // expectations from CPython 3.11's datetime.strptime
		{"11/14/2025", false, date(2025, 11, 14, 0, 0, 0), true},
		{"1/5/2025", false, date(2025, 1, 5, 0, 0, 0), true},
		{"11/ 5/2025", false, date(2025, 11, 5, 0, 0, 0), true},
		{"02/29/2024", false, date(2024, 2, 29, 0, 0, 0), true},
		{"01/01/0001", false, date(1, 1, 1, 0, 0, 0), true},
		{"02/30/2025", false, time.Time{}, false},
		{"13/01/2025", false, time.Time{}, false},
		{"11/14/25", false, time.Time{}, false},
		{"11/14/2025 ", false, time.Time{}, false},
		{"0011/14/2025", false, time.Time{}, false},
		{"01/01/0000", false, time.Time{}, false},
		{"11/14/2025 02:14:22", true, date(2025, 11, 14, 2, 14, 22), true},
		{"11/14/2025 2:4:2", true, date(2025, 11, 14, 2, 4, 2), true},
		{"11/14/2025  02:14:22", true, date(2025, 11, 14, 2, 14, 22), true},
		{"11/14/2025 24:00:00", true, time.Time{}, false},
		{"11/14/2025 23:59:60", true, time.Time{}, false},
		{"11/14/2025", true, time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := pyStrptime(tt.in, tt.withTime)
		if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.ok {
			t.Errorf("pyStrptime(%q, %v) = %v, %v; want %v, %v", tt.in, tt.withTime, got, ok, tt.want, tt.ok)
		}
	}
	if got := daysBeforeToday(date(1, 1, 1, 0, 0, 0)); got != 739568 {
		t.Errorf("days since 01/01/0001 = %d, want 739568", got)
	}
}

func TestPyFloatText(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{ // expectations from CPython 3.11's float()
		{" 12.5 ", 12.5, true}, {"1_000.5", 1000.5, true}, {"1e5_0", 1e50, true}, {".5", 0.5, true}, {"5.", 5, true},
		{"inf", math.Inf(1), true}, {"-Infinity", math.Inf(-1), true}, {"1e999", math.Inf(1), true},
		{"1__0", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"0x10", 0, false}, {"abc", 0, false},
		{"", 0, false}, {"+-1", 0, false}, {"1.5abc", 0, false}, {"$12.00", 0, false},
	}
	for _, tt := range tests {
		got, ok := pyFloatText(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pyFloatText(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if f, ok := pyFloatText("nan"); !ok || !math.IsNaN(f) {
		t.Errorf("pyFloatText(nan) = %v, %v", f, ok)
	}
}

func TestPyRound4(t *testing.T) {
	tests := []struct{ in, want float64 }{ // CPython's round(x, 4)
		{2.775 - 2.5, 0.275}, {0.00005, 0.0001}, {0.00015, 0.0001}, {1.23456789, 1.2346},
	}
	for _, tt := range tests {
		if got := pyRound4(tt.in); got != tt.want {
			t.Errorf("pyRound4(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if got := pyStr(pyRound4(-0.00001)); got != "-0.0" {
		t.Errorf("pyRound4(-1e-05) prints %s, want -0.0", got)
	}
}

func TestPINError(t *testing.T) {
	tests := []struct {
		pin  any
		want string
	}{ // tau2's _validate_pin, as its callers answer
		{"2580", ""},
		{"3210", "Error: PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."},
		{"1234", "Error: PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."},
		{"7777", "Error: PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."},
		{"123", "Error: PIN must be exactly 4 digits."},
		{"12a4", "Error: PIN must be exactly 4 digits."},
		{"", "Error: PIN must be exactly 4 digits."},
		{nil, "Error: PIN must be exactly 4 digits."},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, pinError(tt.pin)); diff != "" {
			t.Errorf("pinError(%v) (-want +got):\n%s", tt.pin, diff)
		}
	}
}
