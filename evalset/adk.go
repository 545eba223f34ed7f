package evalset

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// The types below read Google ADK's eval set JSON (its pydantic models,
// which accept snake_case names and their camelCase aliases alike): each
// decodes through decodeAliased, so their tags give the snake_case names.

type adkSet struct {
	EvalSetID         string     `json:"eval_set_id"`
	Name              string     `json:"name"`
	Description       string     `json:"description"`
	EvalCases         []*adkCase `json:"eval_cases"`
	CreationTimestamp float64    `json:"creation_timestamp"`
}

func (s *adkSet) UnmarshalJSON(b []byte) error {
	type plain adkSet
	return decodeAliased(b, (*plain)(s))
}

type adkCase struct {
	EvalID               string           `json:"eval_id"`
	Conversation         []*adkInvocation `json:"conversation"`
	ConversationScenario *adkScenario     `json:"conversation_scenario"`
	SessionInput         *adkSessionInput `json:"session_input"`
	CreationTimestamp    float64          `json:"creation_timestamp"`
	Rubrics              []*adkRubric     `json:"rubrics"`
}

func (c *adkCase) UnmarshalJSON(b []byte) error {
	type plain adkCase
	return decodeAliased(b, (*plain)(c))
}

type adkInvocation struct {
	InvocationID      string           `json:"invocation_id"`
	UserContent       *adkContent      `json:"user_content"`
	FinalResponse     *adkContent      `json:"final_response"`
	IntermediateData  *adkIntermediate `json:"intermediate_data"`
	CreationTimestamp float64          `json:"creation_timestamp"`
	Rubrics           []*adkRubric     `json:"rubrics"`
}

func (i *adkInvocation) UnmarshalJSON(b []byte) error {
	type plain adkInvocation
	return decodeAliased(b, (*plain)(i))
}

// adkContent is a genai Content: a role and parts.
type adkContent struct {
	Role  string     `json:"role"`
	Parts []*adkPart `json:"parts"`
}

func (c *adkContent) UnmarshalJSON(b []byte) error {
	type plain adkContent
	return decodeAliased(b, (*plain)(c))
}

// adkPart is a genai Part; Other lists the kinds of part proctor does not
// send (inline data, files, code).
type adkPart struct {
	Text             *string              `json:"text"`
	Thought          bool                 `json:"thought"`
	FunctionCall     *adkFunctionCall     `json:"function_call"`
	FunctionResponse *adkFunctionResponse `json:"function_response"`
	Other            []string             `json:"-"`
}

func (p *adkPart) UnmarshalJSON(b []byte) error {
	type plain adkPart
	if err := decodeAliased(b, (*plain)(p)); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(b, &keys)
	for _, k := range sortedKeys(keys) {
		switch toSnake(k) {
		case "text", "thought", "thought_signature", "function_call", "function_response", "part_metadata":
		default:
			p.Other = append(p.Other, k)
		}
	}
	return nil
}

type adkFunctionCall struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

func (f *adkFunctionCall) UnmarshalJSON(b []byte) error {
	type plain adkFunctionCall
	return decodeAliased(b, (*plain)(f))
}

type adkFunctionResponse struct {
	ID       string         `json:"id"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

func (f *adkFunctionResponse) UnmarshalJSON(b []byte) error {
	type plain adkFunctionResponse
	return decodeAliased(b, (*plain)(f))
}

// adkIntermediate is either of ADK's intermediate data forms: tool uses,
// responses and (author, parts) pairs; or the invocation's events.
type adkIntermediate struct {
	ToolUses              []*adkFunctionCall     `json:"tool_uses"`
	ToolResponses         []*adkFunctionResponse `json:"tool_responses"`
	IntermediateResponses []json.RawMessage      `json:"intermediate_responses"`
	InvocationEvents      []*adkEvent            `json:"invocation_events"`
}

func (d *adkIntermediate) UnmarshalJSON(b []byte) error {
	type plain adkIntermediate
	return decodeAliased(b, (*plain)(d))
}

type adkEvent struct {
	Author  string      `json:"author"`
	Content *adkContent `json:"content"`
}

func (e *adkEvent) UnmarshalJSON(b []byte) error {
	type plain adkEvent
	return decodeAliased(b, (*plain)(e))
}

type adkScenario struct {
	StartingPrompt   string `json:"starting_prompt"`
	ConversationPlan string `json:"conversation_plan"`
}

func (s *adkScenario) UnmarshalJSON(b []byte) error {
	type plain adkScenario
	return decodeAliased(b, (*plain)(s))
}

type adkSessionInput struct {
	AppName string         `json:"app_name"`
	UserID  string         `json:"user_id"`
	State   map[string]any `json:"state"`
}

func (s *adkSessionInput) UnmarshalJSON(b []byte) error {
	type plain adkSessionInput
	return decodeAliased(b, (*plain)(s))
}

// adkRubric is ADK's Rubric.
type adkRubric struct {
	ID      string `json:"rubric_id"`
	Content *struct {
		TextProperty string `json:"text_property"`
	} `json:"rubric_content"`
	Description string `json:"description"`
	Type        string `json:"type"`
}

func (r *adkRubric) UnmarshalJSON(b []byte) error {
	type plain adkRubric
	if err := decodeAliased(b, (*plain)(r)); err != nil {
		return err
	}
	var camel struct {
		Content *struct {
			TextProperty string `json:"textProperty"`
		} `json:"rubricContent"`
	}
	if r.Content != nil && r.Content.TextProperty == "" && json.Unmarshal(b, &camel) == nil && camel.Content != nil {
		r.Content.TextProperty = camel.Content.TextProperty
	}
	return nil
}

func (r *adkRubric) content() *RubricContent {
	if r.Content == nil {
		return nil
	}
	return &RubricContent{Text: r.Content.TextProperty}
}

// adkOldItem is one query of ADK's older *.test.json list.
type adkOldItem struct {
	Query           string `json:"query"`
	ExpectedToolUse []struct {
		ToolName  string `json:"tool_name"`
		ToolInput any    `json:"tool_input"`
	} `json:"expected_tool_use"`
	Reference string `json:"reference"`
}

// decodeAliased decodes one JSON object into v, whose tags give snake_case
// names, accepting each member by its snake_case name or its camelCase
// alias (the snake_case one wins when both are given). Members' values are
// not renamed.
func decodeAliased(b []byte, v any) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	if obj == nil {
		return nil
	}
	norm := make(map[string]json.RawMessage, len(obj))
	for k, val := range obj {
		if s := toSnake(k); s != k {
			norm[s] = val
		}
	}
	for k, val := range obj {
		if toSnake(k) == k {
			norm[k] = val
		}
	}
	out, err := json.Marshal(norm)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// toSnake turns camelCase into snake_case ("evalSetId" is "eval_set_id").
func toSnake(s string) string {
	if !strings.ContainsFunc(s, unicode.IsUpper) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fileStem is a file's name without its eval set suffixes.
func fileStem(path string) string {
	name := filepath.Base(path)
	for _, suffix := range []string{suffixEvalSet, suffixTest, ".json"} {
		if trimmed, ok := strings.CutSuffix(name, suffix); ok {
			return trimmed
		}
	}
	return name
}

// epoch converts ADK's float seconds; 0 is none.
func epoch(secs float64) *EpochTime {
	if secs == 0 {
		return nil
	}
	return &EpochTime{time.Unix(0, int64(secs*float64(time.Second))).UTC()}
}
