package banking

import "testing"

// TestIDs checks the id generators that no ported tool calls yet against
// the ids tau2's _deterministic_id gives for the same seeds (computed with
// Python's hashlib.sha256 and f"{x:.2f}": 99.995 formats as "100.00"; JSON integers arrive as int64).
func TestIDs(t *testing.T) {
	tests := []struct{ call, got, want string }{
		{`creditCardOrderID("acc_1", "u_1", "lost")`, creditCardOrderID("acc_1", "u_1", "lost"), "ccord_ada2e3a6a5c9"},
		{`closureReasonID("acc_1", "u_1")`, closureReasonID("acc_1", "u_1"), "clsr_ba32c950b892"},
		{`accountFlagID("acc_1", "freeze", "12/01/2025")`, accountFlagID("acc_1", "freeze", "12/01/2025"), "ccflag_81c586e343d0"},
		{`cliRequestID("acc_1", "u_1", int64(1500))`, cliRequestID("acc_1", "u_1", int64(1500)), "cli_3984bdb9a5cb"},
		{`cliRequestID("acc_1", "u_1", 99.995)`, cliRequestID("acc_1", "u_1", 99.995), "cli_51bfb4210ce3"},
		{`bankTxnID("acc_1", "11/14/2025", "Deposit", 12.5, "credit")`, bankTxnID("acc_1", "11/14/2025", "Deposit", 12.5, "credit"), "btxn_f67cc6024669"},
		{`debitCardOrderID("acc_1", "u_1", "express")`, debitCardOrderID("acc_1", "u_1", "express"), "dcord_8471ec5f85ac"},
		{`debitCardID("acc_1", "u_1", "11/14/2025")`, debitCardID("acc_1", "u_1", "11/14/2025"), "dbc_bfe8269133c7"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.call, tt.got, tt.want)
		}
	}
}
