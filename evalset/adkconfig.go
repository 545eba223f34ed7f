package evalset

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// adkConfig is ADK's test_config.json (its EvalConfig).
type adkConfig struct {
	Criteria      json.RawMessage `json:"criteria"`
	CustomMetrics json.RawMessage `json:"custom_metrics"`
	UserSimulator json.RawMessage `json:"user_simulator_config"`
}

func (c *adkConfig) UnmarshalJSON(b []byte) error {
	type plain adkConfig
	return decodeAliased(b, (*plain)(c))
}

// adkCriterion is one criterion of test_config.json given as an object.
type adkCriterion struct {
	Threshold    *float64         `json:"threshold"`
	MatchType    any              `json:"match_type"`
	JudgeOptions *adkJudgeOptions `json:"judge_model_options"`
	Rubrics      []*adkRubric     `json:"rubrics"`
}

func (c *adkCriterion) UnmarshalJSON(b []byte) error {
	type plain adkCriterion
	return decodeAliased(b, (*plain)(c))
}

// adkJudgeOptions are ADK's JudgeModelOptions.
type adkJudgeOptions struct {
	JudgeModel string `json:"judge_model"`
	NumSamples *int   `json:"num_samples"`
}

func (o *adkJudgeOptions) UnmarshalJSON(b []byte) error {
	type plain adkJudgeOptions
	return decodeAliased(b, (*plain)(o))
}

// adkDefaultMetrics are ADK's criteria when no test_config.json is given.
func adkDefaultMetrics() []*Metric {
	return []*Metric{
		{Name: MetricToolTrajectory, Threshold: adkDefaultTrajectory, Criterion: adkTrajectory(adkExact)},
		{Name: MetricResponseMatch, Threshold: adkDefaultResponseMatch},
	}
}

// parseADKConfig converts test_config.json's criteria, in their order.
func parseADKConfig(data []byte, p problems) []*Metric {
	var cfg adkConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		addJSONError(p, err, data)
		return nil
	}
	if len(cfg.CustomMetrics) > 0 && string(cfg.CustomMetrics) != "null" && string(cfg.CustomMetrics) != "{}" {
		p.add("custom_metrics", "ADK custom metrics run Python code proctor cannot load; remove them")
	}
	entries, err := orderedObject(cfg.Criteria)
	if err != nil {
		p.add("criteria", "%v", err)
		return nil
	}
	var metrics []*Metric
	for _, e := range entries {
		if m := adkMetric(e.key, e.value, field("criteria", e.key), p); m != nil {
			metrics = append(metrics, m)
		}
	}
	if len(metrics) == 0 && p.empty() {
		p.add("criteria", "no criteria given")
	}
	return metrics
}

// adkMetric converts one ADK criterion into a metric.
func adkMetric(name string, raw json.RawMessage, path string, p problems) *Metric {
	if !slices.Contains(ADKSupportedMetrics(), name) {
		reason := "is not an ADK metric"
		if slices.Contains(adkUnsupportedMetrics(), name) {
			reason = "is an ADK metric proctor cannot score"
		}
		p.add(path, "%q %s; supported: %s", name, reason, knownList(ADKSupportedMetrics()))
		return nil
	}
	crit, ok := adkCriterionOf(raw, path, p)
	if !ok {
		return nil
	}
	m := &Metric{Name: name, Threshold: *crit.Threshold}
	switch name {
	case MetricToolTrajectory:
		mt, err := adkMatchTypeOf(crit.MatchType)
		if err != nil {
			p.add(field(path, "match_type"), "%v", err)
		}
		m.Criterion = adkTrajectory(mt)
	case MetricFinalResponseMatch2:
		m.Criterion = &Criterion{LLMJudge: &LLMCriterion{JudgeModel: adkJudgeModel(crit.JudgeOptions)}}
	case ADKRubricFinalResponse:
		m.EvaluatorName = MetricLLMRubricResponse
		m.Criterion = &Criterion{LLMJudge: &LLMCriterion{
			JudgeModel: adkJudgeModel(crit.JudgeOptions),
			Rubrics:    adkRubrics(crit.Rubrics),
		}}
	}
	return m
}

// adkCriterionOf reads a criterion given as a bare threshold or an object.
func adkCriterionOf(raw json.RawMessage, path string, p problems) (*adkCriterion, bool) {
	var threshold float64
	if err := json.Unmarshal(raw, &threshold); err == nil {
		return &adkCriterion{Threshold: &threshold}, true
	}
	var crit adkCriterion
	if err := json.Unmarshal(raw, &crit); err != nil {
		p.add(path, "want a threshold or an object with a threshold: %v", err)
		return nil, false
	}
	if crit.Threshold == nil {
		p.add(field(path, "threshold"), "missing")
		return nil, false
	}
	return &crit, true
}

// adkMatchType is ADK's ToolTrajectoryCriterion.MatchType.
type adkMatchType int

// ADK's match types, numbered as its enum.
const (
	adkExact adkMatchType = iota
	adkInOrder
	adkAnyOrder
)

// adkMatchTypeOf reads a match type given by name (normalized as ADK does)
// or by number; absent is EXACT.
func adkMatchTypeOf(v any) (adkMatchType, error) {
	switch t := v.(type) {
	case nil:
		return adkExact, nil
	case float64:
		if t == 0 || t == 1 || t == 2 {
			return adkMatchType(t), nil
		}
	case string:
		name := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToUpper(strings.TrimSpace(t)))
		if i := slices.Index([]string{"EXACT", "IN_ORDER", "ANY_ORDER"}, name); i >= 0 {
			return adkMatchType(i), nil
		}
	}
	return adkExact, fmt.Errorf("unknown match type %v: want EXACT, IN_ORDER or ANY_ORDER", v)
}

// adkTrajectory is ADK's trajectory match as a tRPC criterion: names and
// arguments compared exactly, results not compared.
func adkTrajectory(mt adkMatchType) *Criterion {
	tc := &ToolTrajectoryCriterion{
		DefaultStrategy: &ToolStrategy{
			Name:      &TextCriterion{MatchStrategy: TextExact},
			Arguments: &JSONCriterion{MatchStrategy: JSONExact},
			Result:    &JSONCriterion{Ignore: true},
		},
		OrderSensitive: mt != adkAnyOrder,
		SubsetMatching: mt != adkExact,
	}
	return &Criterion{ToolTrajectory: tc}
}

// adkJudgeModel is the judge model ADK's options name; the model is left
// to the run's --judge-model when the options name none.
func adkJudgeModel(o *adkJudgeOptions) *JudgeModel {
	samples := adkDefaultJudgeSamples
	jm := &JudgeModel{NumSamples: &samples}
	if o == nil {
		return jm
	}
	jm.ModelName = o.JudgeModel
	if o.NumSamples != nil {
		jm.NumSamples = o.NumSamples
	}
	return jm
}

func adkRubrics(in []*adkRubric) []*Rubric {
	var out []*Rubric
	for _, r := range in {
		if r == nil {
			continue
		}
		out = append(out, &Rubric{ID: r.ID, Content: r.content(), Description: r.Description, Type: r.Type})
	}
	return out
}

// objectEntry is one member of a JSON object, in document order.
type objectEntry struct {
	key   string
	value json.RawMessage
}

// orderedObject reads a JSON object's members in the order written.
func orderedObject(raw json.RawMessage) ([]objectEntry, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("want an object of metric name to threshold or criterion")
	}
	var entries []objectEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		entries = append(entries, objectEntry{key: key, value: value})
	}
	return entries, nil
}
