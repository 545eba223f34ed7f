package pycompat

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestValidationError compares with pydantic 2.13.4's own texts for the
// same inputs (a model with a str title and an optional str description),
// the link's version aside.
func TestValidationError(t *testing.T) {
	cases := []struct {
		errs []FieldError
		want string
	}{
		{[]FieldError{StringTypeError("title", json.Number("123"))},
			"1 validation error for Task\ntitle\n  Input should be a valid string [type=string_type, input_value=123, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
		{[]FieldError{StringTypeError("title", nil)},
			"1 validation error for Task\ntitle\n  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
		{[]FieldError{StringTypeError("title", json.Number("1.5")), StringTypeError("description", json.Number("5"))},
			"2 validation errors for Task\ntitle\n  Input should be a valid string [type=string_type, input_value=1.5, input_type=float]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type\ndescription\n  Input should be a valid string [type=string_type, input_value=5, input_type=int]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
		{[]FieldError{StringTypeError("title", []any{json.Number("1"), "a"}), StringTypeError("description", map[string]any{"k": []any{json.Number("1"), json.Number("2")}})},
			"2 validation errors for Task\ntitle\n  Input should be a valid string [type=string_type, input_value=[1, 'a'], input_type=list]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type\ndescription\n  Input should be a valid string [type=string_type, input_value={'k': [1, 2]}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
		{[]FieldError{StringTypeError("title", true)},
			"1 validation error for Task\ntitle\n  Input should be a valid string [type=string_type, input_value=True, input_type=bool]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
		{[]FieldError{StringTypeError("title", map[string]any{"a": strings.Repeat("b", 60)})},
			"1 validation error for Task\ntitle\n  Input should be a valid string [type=string_type, input_value={'a': 'bbbbbbbbbbbbbbbbbb...bbbbbbbbbbbbbbbbbbbbbb'}, input_type=dict]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type"},
	}
	for _, c := range cases {
		want := strings.ReplaceAll(c.want, "pydantic.dev/2.13/", "pydantic.dev/"+PydanticURLVersion+"/")
		if got := ValidationError("Task", c.errs).Error(); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}
