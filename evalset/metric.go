package evalset

// Metric names proctor scores with.
const (
	MetricToolTrajectory      = "tool_trajectory_avg_score"
	MetricFinalResponse       = "final_response_avg_score"
	MetricLLMFinalResponse    = "llm_final_response"
	MetricLLMRubricResponse   = "llm_rubric_response"
	MetricLLMKnowledgeRecall  = "llm_rubric_knowledge_recall"
	MetricLLMJudgeTemplate    = "llm_judge_template"
	MetricResponseMatch       = "response_match_score"    // ADK: ROUGE-1 F1 against the expected response
	MetricFinalResponseMatch2 = "final_response_match_v2" // ADK: an LLM judge of the response against the expected one
)

// Metric is a named metric with its criterion and pass threshold
// (tRPC-Agent-Go's metric.EvalMetric). A case passes a metric when its
// score reaches Threshold.
type Metric struct {
	// Name identifies the metric instance within a set.
	Name string `json:"metricName,omitempty"`
	// EvaluatorName routes to the evaluator; empty means Name.
	EvaluatorName string     `json:"evaluatorName,omitempty"`
	Threshold     float64    `json:"threshold,omitempty"`
	Criterion     *Criterion `json:"criterion,omitempty"`
}

// Evaluator is the evaluator the metric runs: EvaluatorName, else Name.
func (m *Metric) Evaluator() string {
	if m.EvaluatorName != "" {
		return m.EvaluatorName
	}
	return m.Name
}

// Criterion groups the criteria a metric's evaluator reads.
type Criterion struct {
	ToolTrajectory *ToolTrajectoryCriterion `json:"toolTrajectory,omitempty"`
	FinalResponse  *FinalResponseCriterion  `json:"finalResponse,omitempty"`
	LLMJudge       *LLMCriterion            `json:"llmJudge,omitempty"`
}

// ToolTrajectoryCriterion compares an invocation's tool calls with the
// expected ones.
type ToolTrajectoryCriterion struct {
	// DefaultStrategy compares calls of tools without a ToolStrategy.
	DefaultStrategy *ToolStrategy `json:"defaultStrategy,omitempty"`
	// ToolStrategy, by tool name, replaces DefaultStrategy whole: parts it
	// leaves unset are not compared.
	ToolStrategy map[string]*ToolStrategy `json:"toolStrategy,omitempty"`
	// OrderSensitive matches expected calls as an in-order subsequence of
	// the actual ones; otherwise by maximum bipartite matching.
	OrderSensitive bool `json:"orderSensitive,omitempty"`
	// SubsetMatching lets the agent make calls beyond the expected ones.
	SubsetMatching bool `json:"subsetMatching,omitempty"`
	// CompareName names a custom comparison (tRPC code only; refused).
	CompareName string `json:"compareName,omitempty"`
}

// ToolStrategy says how a call's name, arguments and result compare.
type ToolStrategy struct {
	Name      *TextCriterion `json:"name,omitempty"`
	Arguments *JSONCriterion `json:"arguments,omitempty"`
	Result    *JSONCriterion `json:"result,omitempty"`
}

// TextMatch is how texts compare.
type TextMatch string

// Text match strategies.
const (
	TextExact    TextMatch = "exact" // the default
	TextContains TextMatch = "contains"
	TextRegex    TextMatch = "regex"
	TextSkip     TextMatch = "skip"
)

// TextCriterion compares an actual text (source) with an expected one
// (target).
type TextCriterion struct {
	Ignore          bool             `json:"ignore,omitempty"`
	CaseInsensitive bool             `json:"caseInsensitive,omitempty"`
	MatchStrategy   TextMatch        `json:"matchStrategy,omitempty"`
	Length          *LengthCriterion `json:"length,omitempty"`
	CompareName     string           `json:"compareName,omitempty"`
}

// LengthCriterion bounds a text's length in characters.
type LengthCriterion struct {
	Ignore bool `json:"ignore,omitempty"`
	Min    *int `json:"min,omitempty"`
	Max    *int `json:"max,omitempty"`
}

// JSONMatch is how JSON values compare.
type JSONMatch string

// JSON match strategies.
const (
	JSONExact JSONMatch = "exact" // the default
	JSONSkip  JSONMatch = "skip"
)

// JSONCriterion compares an actual JSON value with an expected one.
type JSONCriterion struct {
	Ignore bool `json:"ignore,omitempty"`
	// IgnoreTree names fields (a true leaf) left out of the comparison.
	IgnoreTree map[string]any `json:"ignoreTree,omitempty"`
	// OnlyTree names the only fields compared.
	OnlyTree      map[string]any `json:"onlyTree,omitempty"`
	MatchStrategy JSONMatch      `json:"matchStrategy,omitempty"`
	// NumberTolerance is the absolute difference allowed between numbers
	// (default 1e-6).
	NumberTolerance *float64 `json:"numberTolerance,omitempty"`
	// Valid only requires the actual value to be valid JSON.
	Valid       bool   `json:"valid,omitempty"`
	CompareName string `json:"compareName,omitempty"`
}

// FinalResponseCriterion compares an invocation's final response with the
// expected one: every criterion set must match.
type FinalResponseCriterion struct {
	Text        *TextCriterion  `json:"text,omitempty"`
	JSON        *JSONCriterion  `json:"json,omitempty"`
	Rouge       *RougeCriterion `json:"rouge,omitempty"`
	XML         *XMLCriterion   `json:"xml,omitempty"`
	CompareName string          `json:"compareName,omitempty"`
}

// RougeMeasure is the ROUGE measure compared with the threshold.
type RougeMeasure string

// ROUGE measures.
const (
	RougeF1        RougeMeasure = "f1"
	RougePrecision RougeMeasure = "precision"
	RougeRecall    RougeMeasure = "recall"
)

// RougeCriterion scores the response's ROUGE against the expected one.
type RougeCriterion struct {
	Ignore bool `json:"ignore,omitempty"`
	// RougeType is "rouge1".."rouge9", "rougeL" or "rougeLsum".
	RougeType      string       `json:"rougeType,omitempty"`
	Measure        RougeMeasure `json:"measure,omitempty"`
	Threshold      RougeScore   `json:"threshold,omitempty"`
	UseStemmer     bool         `json:"useStemmer,omitempty"`
	SplitSummaries bool         `json:"splitSummaries,omitempty"`
	TokenizerName  string       `json:"tokenizerName,omitempty"`
}

// RougeScore is a ROUGE precision, recall and F1.
type RougeScore struct {
	Precision float64 `json:"precision,omitempty"`
	Recall    float64 `json:"recall,omitempty"`
	F1        float64 `json:"f1,omitempty"`
}

// XMLMatch is how XML responses compare.
type XMLMatch string

// XML match strategies.
const XMLSkip XMLMatch = "skip"

// XMLCriterion checks the response is well-formed XML.
type XMLCriterion struct {
	Ignore        bool     `json:"ignore,omitempty"`
	Valid         bool     `json:"valid,omitempty"`
	MatchStrategy XMLMatch `json:"matchStrategy,omitempty"`
}

// LLMCriterion configures an LLM judge.
type LLMCriterion struct {
	Rubrics    []*Rubric      `json:"rubrics,omitempty"`
	JudgeModel *JudgeModel    `json:"judgeModel,omitempty"`
	Template   *JudgeTemplate `json:"template,omitempty"`
}

// Rubric is one independently verifiable requirement a judge checks.
type Rubric struct {
	ID          string         `json:"id,omitempty"`
	Content     *RubricContent `json:"content,omitempty"`
	Description string         `json:"description,omitempty"`
	Type        string         `json:"type,omitempty"`
}

// RubricContent is a rubric's text, what the judge reads.
type RubricContent struct {
	Text string `json:"text,omitempty"`
}

// JudgeModel is the judge's model. ProviderName, ModelName, BaseURL and
// APIKey may reference environment variables (${VAR}).
type JudgeModel struct {
	ProviderName string         `json:"providerName,omitempty"`
	ModelName    string         `json:"modelName,omitempty"`
	Variant      string         `json:"variant,omitempty"`
	BaseURL      string         `json:"baseURL,omitempty"`
	APIKey       string         `json:"apiKey,omitempty"`
	ExtraFields  map[string]any `json:"extraFields,omitempty"`
	// NumSamples is how many times each invocation is judged (default 1);
	// the majority verdict counts, a tie counting as failed.
	NumSamples *int              `json:"numSamples,omitempty"`
	Generation *GenerationConfig `json:"generationConfig,omitempty"`
}

// GenerationConfig is the judge's sampling settings.
type GenerationConfig struct {
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	Stream      bool     `json:"stream"`
	Stop        []string `json:"stop,omitempty"`
}

// JudgeTemplate configures llm_judge_template: a prompt with variables bound
// to invocation fields.
type JudgeTemplate struct {
	Prompt                   string             `json:"prompt,omitempty"`
	ResponseScorerName       string             `json:"responseScorerName,omitempty"`
	VariableBindings         []*VariableBinding `json:"variableBindings,omitempty"`
	SampleAggregatorName     string             `json:"sampleAggregatorName,omitempty"`
	InvocationAggregatorName string             `json:"invocationAggregatorName,omitempty"`
}

// VariableBinding binds a template variable to an invocation field.
type VariableBinding struct {
	TemplateVariable string          `json:"templateVariable,omitempty"`
	Source           *VariableSource `json:"source,omitempty"`
}

// VariableScope says which invocation a variable reads.
type VariableScope string

// Variable scopes.
const (
	ScopeActual   VariableScope = "actual"
	ScopeExpected VariableScope = "expected"
)

// VariableField says which field of the invocation a variable reads.
type VariableField string

// Variable fields.
const (
	FieldUserContent   VariableField = "userContent"
	FieldFinalResponse VariableField = "finalResponse"
)

// VariableSource is where a template variable's value comes from.
type VariableSource struct {
	Scope VariableScope `json:"scope,omitempty"`
	Field VariableField `json:"field,omitempty"`
}
