package banking

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

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
