package banking

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/proctor-eval/proctor/domains/tau2/internal/pyjson"
)

// todayStr is get_today_str(), 11/14/2025: the clock of every banking
// scenario is fixed, as in tau2's utils.py.
const todayStr = "11/14/2025"

// deterministicID is tau2's _deterministic_id: the first length hex digits
// of the SHA-256 of the seed's UTF-8.
func deterministicID(seed string, length int) string {
	sum := sha256.Sum256([]byte(seed))
	return hex.EncodeToString(sum[:length/2])
}

// pyFixed2 is Python's f"{x:.2f}" of a number.
func pyFixed2(x any) string {
	return pyFormat(x, 'f', 2)
}

// sortedDumps is json.dumps(v, sort_keys=True).
func sortedDumps(v any) string {
	raw, err := pyjson.Marshal(v)
	if err != nil {
		return pyDumps(v, 0)
	}
	return string(raw)
}

func transactionID(userID, cardType, merchant string, amount any, category string) string {
	seed := strings.Join([]string{"transaction", userID, cardType, merchant, pyFixed2(amount), category}, ":")
	return "txn_" + deterministicID(seed, 12)
}

func referralID(referrer, accountType string) string {
	return deterministicID("referral:"+referrer+":"+accountType, 16)
}

func applicationID(cardType, name string, income float64, subscription any) string {
	return deterministicID("credit_card:"+cardType+":"+name+":"+pyStr(income)+":"+pyStr(subscription), 16)
}

func verificationID(userID, timeVerified string) string {
	r := strings.NewReplacer(" ", "_", ":", "", "-", "")
	return userID + "_" + r.Replace(timeVerified)
}

func userDiscoverableToolID(name string) string {
	return deterministicID("user_discoverable_tool:"+name, 16)
}

func userDiscoverableToolCallID(name string, args *Obj) string {
	return deterministicID("user_discoverable_tool_call:"+name+":"+sortedDumps(args), 16)
}

func agentDiscoverableToolID(name string) string {
	return deterministicID("agent_discoverable_tool:"+name, 16)
}

func disputeID(userID, txnID string) string {
	return "dsp_" + deterministicID("dispute:"+userID+":"+txnID, 12)
}

func referralLinkID(userID, card string) string {
	return deterministicID("referral_link:"+userID+":"+card, 16)
}

func creditCardOrderID(account, userID, reason string) string {
	return "ccord_" + deterministicID("credit_card_order:"+account+":"+userID+":"+reason, 12)
}

func closureReasonID(account, userID string) string {
	return "clsr_" + deterministicID("closure_reason:"+account+":"+userID, 12)
}

func accountFlagID(account, flag, expiration string) string {
	return "ccflag_" + deterministicID("account_flag:"+account+":"+flag+":"+expiration, 12)
}

func cliRequestID(account, userID string, amount any) string {
	return "cli_" + deterministicID("cli_request:"+account+":"+userID+":"+pyFixed2(amount), 12)
}

func bankTxnID(account, date, description string, amount any, kind string) string {
	return "btxn_" + deterministicID("bank_txn:"+account+":"+date+":"+description+":"+pyFixed2(amount)+":"+kind, 12)
}

func debitCardOrderID(account, userID, delivery string) string {
	return "dcord_" + deterministicID("debit_card_order:"+account+":"+userID+":"+delivery, 12)
}

func debitCardID(account, userID, issueDate string) string {
	return "dbc_" + deterministicID("debit_card:"+account+":"+userID+":"+issueDate, 12)
}
