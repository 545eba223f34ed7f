package openai

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// buildParams translates an ADK request into a chat completions request.
// Everything it cannot express faithfully is an error rather than silently
// dropped: a conversation that reaches the model changed is worse than one
// that does not reach it.
func buildParams(modelName string, req *model.LLMRequest) (oai.ChatCompletionNewParams, error) {
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(modelName)}
	if modelName == "" {
		return p, errors.New("no model name")
	}
	cfg := req.Config
	if cfg == nil {
		cfg = &genai.GenerateContentConfig{}
	}

	if cfg.SystemInstruction != nil {
		text, err := systemText(cfg.SystemInstruction)
		if err != nil {
			return p, err
		}
		if text != "" {
			p.Messages = append(p.Messages, oai.SystemMessage(text))
		}
	}
	msgs, err := convertContents(req.Contents)
	if err != nil {
		return p, err
	}
	p.Messages = append(p.Messages, msgs...)
	if len(p.Messages) == 0 {
		return p, errors.New("request has no messages")
	}

	if err := applyGeneration(&p, cfg); err != nil {
		return p, err
	}
	if err := applyTools(&p, cfg); err != nil {
		return p, err
	}
	return p, nil
}

// systemText flattens the system instruction, whose parts can only be text.
func systemText(c *genai.Content) (string, error) {
	var texts []string
	for _, part := range c.Parts {
		if part == nil {
			continue
		}
		if !isTextOnly(part) {
			return "", errors.New("system instruction: only text parts are supported")
		}
		if part.Text != "" {
			texts = append(texts, part.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// isTextOnly reports whether part carries nothing but (possibly empty) text.
func isTextOnly(part *genai.Part) bool {
	return part.FunctionCall == nil && part.FunctionResponse == nil && part.InlineData == nil &&
		part.FileData == nil && part.ExecutableCode == nil && part.CodeExecutionResult == nil &&
		part.ToolCall == nil && part.ToolResponse == nil
}

// callIDs gives every function call an ID, so that the tool messages
// answering it can name it: genai's FunctionCall.ID is optional, OpenAI's
// tool_call_id is not. Generated IDs are "call_<n>", n counting the calls of
// the conversation from 1, so the same conversation always gets the same IDs.
type callIDs struct {
	n       int
	pending map[string][]string // function name -> generated IDs not yet answered
}

func (c *callIDs) forCall(fc *genai.FunctionCall) string {
	c.n++
	if fc.ID != "" {
		return fc.ID
	}
	id := "call_" + strconv.Itoa(c.n)
	if c.pending == nil {
		c.pending = map[string][]string{}
	}
	c.pending[fc.Name] = append(c.pending[fc.Name], id)
	return id
}

func (c *callIDs) forResponse(fr *genai.FunctionResponse) (string, error) {
	if fr.ID != "" {
		return fr.ID, nil
	}
	ids := c.pending[fr.Name]
	if len(ids) == 0 {
		return "", fmt.Errorf("function response %q without an ID answers no earlier call", fr.Name)
	}
	c.pending[fr.Name] = ids[1:]
	return ids[0], nil
}

func convertContents(contents []*genai.Content) ([]oai.ChatCompletionMessageParamUnion, error) {
	var out []oai.ChatCompletionMessageParamUnion
	var ids callIDs
	for i, c := range contents {
		if c == nil {
			continue
		}
		var err error
		switch c.Role {
		case genai.RoleUser, "":
			out, err = appendUser(out, c, &ids)
		case genai.RoleModel:
			out, err = appendAssistant(out, c, &ids)
		default:
			err = fmt.Errorf("unknown role %q", c.Role)
		}
		if err != nil {
			return nil, fmt.Errorf("contents[%d]: %w", i, err)
		}
	}
	return out, nil
}

// appendUser converts a user turn: its function responses become tool
// messages (first, since they must follow the assistant's tool calls), its
// text and images one user message.
func appendUser(out []oai.ChatCompletionMessageParamUnion, c *genai.Content, ids *callIDs) ([]oai.ChatCompletionMessageParamUnion, error) {
	var parts []oai.ChatCompletionContentPartUnionParam
	hasImage := false
	for _, part := range c.Parts {
		switch {
		case part == nil:
		case part.FunctionResponse != nil:
			id, err := ids.forResponse(part.FunctionResponse)
			if err != nil {
				return nil, err
			}
			body, err := functionResult(part.FunctionResponse)
			if err != nil {
				return nil, err
			}
			out = append(out, oai.ToolMessage(body, id))
		case part.InlineData != nil:
			if !strings.HasPrefix(part.InlineData.MIMEType, "image/") {
				return nil, fmt.Errorf("inline data of type %q is not supported", part.InlineData.MIMEType)
			}
			hasImage = true
			url := "data:" + part.InlineData.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(part.InlineData.Data)
			parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: url}))
		case part.Thought:
		case isTextOnly(part):
			if part.Text != "" {
				parts = append(parts, oai.TextContentPart(part.Text))
			}
		default:
			return nil, errors.New("user part of this kind is not supported (only text, images and function responses)")
		}
	}
	if len(parts) == 0 {
		return out, nil
	}
	if hasImage {
		return append(out, oai.UserMessage(parts)), nil
	}
	return append(out, oai.UserMessage(joinText(parts))), nil
}

func joinText(parts []oai.ChatCompletionContentPartUnionParam) string {
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		if p.OfText != nil {
			texts = append(texts, p.OfText.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// functionResult is the tool message's content: the JSON of the response,
// or, when the response is only a string "output" (genai's key for a
// function's output), that string as it is.
func functionResult(fr *genai.FunctionResponse) (string, error) {
	if fr.Response == nil {
		return "{}", nil
	}
	if out, ok := fr.Response["output"].(string); ok && len(fr.Response) == 1 {
		return out, nil
	}
	b, err := json.Marshal(fr.Response)
	if err != nil {
		return "", fmt.Errorf("function response %q: %w", fr.Name, err)
	}
	return string(b), nil
}

// appendAssistant converts a model turn: text parts become the assistant's
// content, function calls its tool_calls. Thoughts are not sent back.
func appendAssistant(out []oai.ChatCompletionMessageParamUnion, c *genai.Content, ids *callIDs) ([]oai.ChatCompletionMessageParamUnion, error) {
	var texts []string
	var calls []oai.ChatCompletionMessageToolCallUnionParam
	for _, part := range c.Parts {
		switch {
		case part == nil || part.Thought:
		case part.FunctionCall != nil:
			fc := part.FunctionCall
			if fc.Name == "" {
				return nil, errors.New("function call without a name")
			}
			args := "{}"
			if fc.Args != nil {
				b, err := json.Marshal(fc.Args)
				if err != nil {
					return nil, fmt.Errorf("function call %q: %w", fc.Name, err)
				}
				args = string(b)
			}
			calls = append(calls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID:       ids.forCall(fc),
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: fc.Name, Arguments: args},
				},
			})
		case isTextOnly(part):
			if part.Text != "" {
				texts = append(texts, part.Text)
			}
		default:
			return nil, errors.New("model part of this kind is not supported (only text and function calls)")
		}
	}
	if len(texts) == 0 && len(calls) == 0 {
		return out, nil
	}
	msg := oai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
	if len(texts) > 0 {
		msg.Content.OfString = param.NewOpt(strings.Join(texts, "\n"))
	}
	return append(out, oai.ChatCompletionMessageParamUnion{OfAssistant: &msg}), nil
}

// applyGeneration maps the sampling and output settings.
func applyGeneration(p *oai.ChatCompletionNewParams, cfg *genai.GenerateContentConfig) error {
	if cfg.CandidateCount > 1 {
		return fmt.Errorf("CandidateCount %d: only one candidate is supported", cfg.CandidateCount)
	}
	if cfg.Temperature != nil {
		p.Temperature = param.NewOpt(widen(*cfg.Temperature))
	}
	if cfg.TopP != nil {
		p.TopP = param.NewOpt(widen(*cfg.TopP))
	}
	if cfg.PresencePenalty != nil {
		p.PresencePenalty = param.NewOpt(widen(*cfg.PresencePenalty))
	}
	if cfg.FrequencyPenalty != nil {
		p.FrequencyPenalty = param.NewOpt(widen(*cfg.FrequencyPenalty))
	}
	if cfg.Seed != nil {
		p.Seed = param.NewOpt(int64(*cfg.Seed))
	}
	if cfg.MaxOutputTokens > 0 {
		p.MaxCompletionTokens = param.NewOpt(int64(cfg.MaxOutputTokens))
	}
	if len(cfg.StopSequences) > 0 {
		p.Stop.OfStringArray = cfg.StopSequences
	}
	schema, err := responseSchema(cfg)
	if err != nil {
		return err
	}
	switch {
	case schema != nil:
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "response", Schema: schema},
		}
	case cfg.ResponseMIMEType == "application/json":
		p.ResponseFormat.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	case cfg.ResponseMIMEType == "", cfg.ResponseMIMEType == "text/plain":
	default:
		return fmt.Errorf("ResponseMIMEType %q is not supported", cfg.ResponseMIMEType)
	}
	return nil
}

// widen converts a float32 setting to the float64 its decimal spelling
// means (0.7, not 0.699999988079071).
func widen(f float32) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return v
}

func responseSchema(cfg *genai.GenerateContentConfig) (map[string]any, error) {
	switch {
	case cfg.ResponseJsonSchema != nil:
		return jsonObject(cfg.ResponseJsonSchema)
	case cfg.ResponseSchema != nil:
		return schemaJSON(cfg.ResponseSchema), nil
	}
	return nil, nil
}

// applyTools declares the function tools and maps the function calling mode.
func applyTools(p *oai.ChatCompletionNewParams, cfg *genai.GenerateContentConfig) error {
	for i, tool := range cfg.Tools {
		if tool == nil {
			continue
		}
		if tool.Retrieval != nil || tool.ComputerUse != nil || tool.FileSearch != nil || tool.GoogleSearch != nil ||
			tool.GoogleMaps != nil || tool.CodeExecution != nil || tool.EnterpriseWebSearch != nil ||
			tool.GoogleSearchRetrieval != nil || tool.ParallelAISearch != nil || tool.URLContext != nil || len(tool.MCPServers) > 0 {
			return fmt.Errorf("tools[%d]: only function declarations are supported", i)
		}
		for _, fd := range tool.FunctionDeclarations {
			if fd == nil {
				continue
			}
			if fd.Name == "" {
				return fmt.Errorf("tools[%d]: function declaration without a name", i)
			}
			params, err := functionParameters(fd)
			if err != nil {
				return fmt.Errorf("tools[%d] %q: %w", i, fd.Name, err)
			}
			def := shared.FunctionDefinitionParam{Name: fd.Name, Parameters: params}
			if fd.Description != "" {
				def.Description = param.NewOpt(fd.Description)
			}
			p.Tools = append(p.Tools, oai.ChatCompletionFunctionTool(def))
		}
	}
	if cfg.ToolConfig == nil || cfg.ToolConfig.FunctionCallingConfig == nil || len(p.Tools) == 0 {
		return nil
	}
	fcc := cfg.ToolConfig.FunctionCallingConfig
	switch fcc.Mode {
	case genai.FunctionCallingConfigModeNone:
		p.ToolChoice.OfAuto = param.NewOpt("none")
	case genai.FunctionCallingConfigModeAny:
		if len(fcc.AllowedFunctionNames) == 1 {
			p.ToolChoice.OfFunctionToolChoice = &oai.ChatCompletionNamedToolChoiceParam{
				Function: oai.ChatCompletionNamedToolChoiceFunctionParam{Name: fcc.AllowedFunctionNames[0]},
			}
		} else {
			p.ToolChoice.OfAuto = param.NewOpt("required")
		}
	case genai.FunctionCallingConfigModeAuto:
		p.ToolChoice.OfAuto = param.NewOpt("auto")
	}
	return nil
}

// functionParameters is the JSON schema of a declaration's parameters.
func functionParameters(fd *genai.FunctionDeclaration) (shared.FunctionParameters, error) {
	switch {
	case fd.ParametersJsonSchema != nil:
		return jsonObject(fd.ParametersJsonSchema)
	case fd.Parameters != nil:
		return schemaJSON(fd.Parameters), nil
	}
	return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
}

// jsonObject round-trips v through JSON into an object.
func jsonObject(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, errors.New("schema is not a JSON object")
	}
	return m, nil
}

// schemaJSON converts genai's OpenAPI-style schema to JSON Schema: lower
// case types, nullable as a "null" type.
func schemaJSON(s *genai.Schema) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	m := map[string]any{}
	if s.Type != "" && s.Type != genai.TypeUnspecified {
		t := strings.ToLower(string(s.Type))
		if s.Nullable != nil && *s.Nullable {
			m["type"] = []any{t, "null"}
		} else {
			m["type"] = t
		}
	}
	if s.Description != "" {
		m["description"] = s.Description
	}
	if s.Title != "" {
		m["title"] = s.Title
	}
	if s.Format != "" && s.Format != "enum" {
		m["format"] = s.Format
	}
	if len(s.Enum) > 0 {
		enum := make([]any, len(s.Enum))
		for i, e := range s.Enum {
			enum[i] = e
		}
		m["enum"] = enum
	}
	if s.Default != nil {
		m["default"] = s.Default
	}
	if len(s.Properties) > 0 {
		props := make(map[string]any, len(s.Properties))
		for name, sub := range s.Properties {
			props[name] = schemaJSON(sub)
		}
		m["properties"] = props
	} else if s.Type == genai.TypeObject {
		m["properties"] = map[string]any{}
	}
	if len(s.Required) > 0 {
		m["required"] = s.Required
	}
	if s.Items != nil {
		m["items"] = schemaJSON(s.Items)
	}
	if len(s.AnyOf) > 0 {
		anyOf := make([]any, len(s.AnyOf))
		for i, sub := range s.AnyOf {
			anyOf[i] = schemaJSON(sub)
		}
		m["anyOf"] = anyOf
	}
	setInt := func(key string, v *int64) {
		if v != nil {
			m[key] = *v
		}
	}
	setInt("minItems", s.MinItems)
	setInt("maxItems", s.MaxItems)
	setInt("minLength", s.MinLength)
	setInt("maxLength", s.MaxLength)
	setInt("minProperties", s.MinProperties)
	setInt("maxProperties", s.MaxProperties)
	if s.Minimum != nil {
		m["minimum"] = *s.Minimum
	}
	if s.Maximum != nil {
		m["maximum"] = *s.Maximum
	}
	if s.Pattern != "" {
		m["pattern"] = s.Pattern
	}
	return m
}
