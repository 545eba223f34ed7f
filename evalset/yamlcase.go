package evalset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"
	"gopkg.in/yaml.v3"
)

// yamlCase is one YAML case file: a case played on one conversation, its
// input one turn or a list of turns, and what is expected of the agent.
type yamlCase struct {
	Case      string        `yaml:"case" validate:"required"`
	Transport string        `yaml:"transport" validate:"omitempty,oneof=jsonrpc rest grpc"`
	Input     yamlTurns     `yaml:"input" validate:"required,min=1,dive,required"`
	Expected  *yamlExpected `yaml:"expected"`
	MaxSteps  int           `yaml:"max_steps" validate:"gte=0"`
	Scorer    string        `yaml:"scorer"`
	// Inspect are checks on an ECP agent's state after the last turn.
	Inspect []*yamlInspect `yaml:"inspect" validate:"dive,required"`
}

// yamlInspect is one inspect assertion: a path and one of equals (any
// value), contains, matches.
type yamlInspect struct {
	Path     string    `yaml:"path"`
	Equals   yaml.Node `yaml:"equals" validate:"-"`
	Contains *string   `yaml:"contains"`
	Matches  *string   `yaml:"matches"`
}

// yamlTurns are a case's turns: a list, or a single turn given as a mapping.
type yamlTurns []*yamlTurn

func (yamlTurns) singleOrList() {}

// UnmarshalYAML reads a single turn or a list of turns.
func (t *yamlTurns) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var one yamlTurn
		if err := n.Decode(&one); err != nil {
			return err
		}
		*t = yamlTurns{&one}
		return nil
	}
	var list []*yamlTurn
	if err := n.Decode(&list); err != nil {
		return err
	}
	*t = list
	return nil
}

// yamlTurn is one user message, with what is expected of the agent's turn.
type yamlTurn struct {
	Role     string        `yaml:"role" validate:"omitempty,eq=user"`
	Content  string        `yaml:"content" validate:"required"`
	Expected *yamlExpected `yaml:"expected"`
}

// yamlExpected is what a turn expects: its tool calls (order-sensitive,
// except adjacent calls marked parallel) and its final text.
type yamlExpected struct {
	ToolCalls     []*yamlToolCall `yaml:"tool_calls" validate:"dive,required"`
	FinalResponse *yamlText       `yaml:"final_response"`
}

type yamlToolCall struct {
	Name        string   `yaml:"name" validate:"required"`
	ArgsContain []string `yaml:"args_contain" validate:"dive,required"`
	Parallel    bool     `yaml:"parallel"`
	// Result is what proctor answers an ECP agent's matching call with
	// (an agent over A2A runs its own tools); it is not compared.
	Result yaml.Node `yaml:"result" validate:"-"`
}

// yamlText is a final text criterion: one of equals, contains, regex.
type yamlText struct {
	Equals          *string `yaml:"equals"`
	Contains        *string `yaml:"contains"`
	Regex           *string `yaml:"regex"`
	CaseInsensitive bool    `yaml:"case_insensitive"`
}

// parseYAMLCase reads one YAML case file into a case with its metrics,
// spending the budget; nil when it cannot be read (the problems say why).
func parseYAMLCase(data []byte, budget *yamlBudget, p problems) *Case {
	root, err := parseYAML(data, budget)
	if err != nil {
		p.add("", "%v", err)
		return nil
	}
	var generic any
	if err := root.Decode(&generic); err != nil {
		p.add("", "invalid YAML: %v", err)
		return nil
	}
	if _, ok := generic.(map[string]any); !ok {
		p.add("", "not a YAML case: want a mapping with case, input and expected")
		return nil
	}
	checkKeys(generic, reflect.TypeFor[yamlCase](), "yaml", "", p)
	var y yamlCase
	if err := decodeYAMLCase(data, root, &y, p.empty()); err != nil {
		addYAMLError(p, err)
		return nil
	}
	_, single := generic.(map[string]any)["input"].(map[string]any)
	validateYAMLCase(&y, single, p)
	return y.toCase(single, p)
}

// decodeYAMLCase decodes the case, with unknown keys refused when none
// were found yet (checkKeys reports them all, with their paths).
func decodeYAMLCase(data []byte, root *yaml.Node, y *yamlCase, strict bool) error {
	if !strict {
		return root.Decode(y)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	return dec.Decode(y)
}

func addYAMLError(p problems, err error) {
	var typeErr *yaml.TypeError
	if errors.As(err, &typeErr) {
		for _, e := range typeErr.Errors {
			p.add("", "%s", e)
		}
		return
	}
	p.add("", "invalid YAML case: %v", err)
}

// checkYAMLDepth refuses YAML nested deeper than MaxDepth.
func checkYAMLDepth(n *yaml.Node, depth int) error {
	if depth > MaxDepth {
		return fmt.Errorf("YAML nests deeper than %d levels (line %d): flatten the data", MaxDepth, n.Line)
	}
	for _, c := range n.Content {
		if err := checkYAMLDepth(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// validateYAMLCase checks the case's fields with the validator, naming
// them by their YAML keys.
func validateYAMLCase(y *yamlCase, single bool, p problems) {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		return name
	})
	err := v.Struct(y)
	var errs validator.ValidationErrors
	if !errors.As(err, &errs) {
		return
	}
	for _, fe := range errs {
		_, path, _ := strings.Cut(fe.Namespace(), ".")
		if single {
			path = strings.Replace(path, "input[0]", "input", 1)
		}
		p.add(path, "%s", describeFieldError(fe))
	}
}

// describeFieldError says what a validator tag requires.
func describeFieldError(fe validator.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "missing"
	case "oneof":
		return fmt.Sprintf("%v is not one of: %s", fe.Value(), strings.ReplaceAll(fe.Param(), " ", ", "))
	case "eq":
		return fmt.Sprintf("must be %s", fe.Param())
	case "gte", "min":
		return fmt.Sprintf("must be at least %s", fe.Param())
	case "lte", "max":
		return fmt.Sprintf("must be at most %s", fe.Param())
	}
	return fmt.Sprintf("fails %s", fe.Tag())
}

// yamlToJSON converts a YAML document to JSON, within the bounds.
func yamlToJSON(data []byte) ([]byte, error) {
	root, err := parseYAML(data, newYAMLBudget())
	if err != nil {
		return nil, err
	}
	var v any
	if err := root.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("YAML that JSON cannot hold (mapping keys must be strings): %w", err)
	}
	return out, nil
}
