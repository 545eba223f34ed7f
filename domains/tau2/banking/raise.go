package banking

import "strings"

// Where one of tau2's tools raises, the port's body answers with a raised
// text (raiseTypeError, raiseError) in place of its result, and the layers
// above treat it as Python treats the exception on its way up:
// call_discoverable_agent_tool answers a TypeError as "Error: Invalid
// arguments: ..." (and logs no call), call_discoverable_user_tool as
// "Error: Invalid arguments for tool '...': ...", and whatever reaches a
// tool call's top (every other exception, and a TypeError outside those
// try blocks) becomes tau2's Environment.get_response answer, "Error: "
// and the exception's text with the error flag set (see register).
//
// The mark begins with a NUL byte, which begins no tool's text.
const raisedMark = "\x00raised:"

const (
	typeErrorKind  = "T:"
	otherErrorKind = "E:"
)

// raiseTypeError is the answer of a body where Python raises a TypeError
// with this text.
func raiseTypeError(msg string) string { return raisedMark + typeErrorKind + msg }

// raiseError is the answer of a body where Python raises an exception
// other than TypeError (ValueError, AttributeError) with this text.
func raiseError(msg string) string { return raisedMark + otherErrorKind + msg }

// raised reads a raised answer: the exception's text and whether it is a
// TypeError; ok is false for an ordinary answer.
func raised(answer string) (msg string, typeError, ok bool) {
	rest, ok := strings.CutPrefix(answer, raisedMark)
	if !ok {
		return "", false, false
	}
	if msg, ok := strings.CutPrefix(rest, typeErrorKind); ok {
		return msg, true, true
	}
	return strings.TrimPrefix(rest, otherErrorKind), false, true
}

// catchTypeError is `except TypeError as e: return prefix + str(e)`
// around a body's answer: other exceptions go on up.
func catchTypeError(answer, prefix string) (string, bool) {
	if msg, typeErr, ok := raised(answer); ok && typeErr {
		return prefix + msg, true
	}
	return answer, false
}
