package metric

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
	"github.com/proctor-eval/proctor/result"
)

// The judges' kinds. Prompts show the judge only user and agent text and
// tool results, never the agent's thoughts (Message.ReasoningContent).
var (
	finalResponseJudge = judgeKind{name: evalset.MetricLLMFinalResponse, defaultSamples: defaultJudgeSamples, needsCriterion: true,
		jsonReply: noJSON, prompt: finalResponsePrompt, score: scoreValidity}
	finalResponseMatchV2Judge = judgeKind{name: evalset.MetricFinalResponseMatch2, defaultSamples: adkJudgeSamples,
		jsonReply: noJSON, prompt: finalResponsePrompt, score: scoreValidity}
	rubricResponseJudge = judgeKind{name: evalset.MetricLLMRubricResponse, defaultSamples: defaultJudgeSamples, needsCriterion: true,
		jsonReply: yesJSON, prompt: rubricResponsePrompt, score: scoreRubrics, check: checkRubrics}
	knowledgeRecallJudge = judgeKind{name: evalset.MetricLLMKnowledgeRecall, defaultSamples: defaultJudgeSamples, needsCriterion: true,
		jsonReply: yesJSON, prompt: knowledgeRecallPrompt, score: scoreRubrics, check: checkRubrics}
	templateJudge = judgeKind{name: evalset.MetricLLMJudgeTemplate, defaultSamples: defaultJudgeSamples, needsCriterion: true,
		jsonReply: yesJSON, prompt: templatePrompt, score: scoreTemplate, check: checkTemplate}
)

func last(invs []*evalset.Invocation) *evalset.Invocation { return invs[len(invs)-1] }

// text is a message's visible text: its content, never its thoughts.
func text(m *evalset.Message) string { return m.Text() }

const validityFormat = `Answer in exactly this form and write nothing after it:
reasoning: <two or three sentences explaining your decision>
is_the_agent_response_valid: <valid or invalid>`

// finalResponsePrompt asks whether the agent's final response agrees with
// the expected one.
func finalResponsePrompt(_ *evalset.Metric, actuals, expecteds []*evalset.Invocation) (string, error) {
	a, e := last(actuals), last(expecteds)
	var b strings.Builder
	b.WriteString("You grade the answer an AI agent gave to a user against a reference answer known to be right.\n\n")
	fmt.Fprintf(&b, "<user_request>\n%s\n</user_request>\n\n", text(a.UserContent))
	fmt.Fprintf(&b, "<reference_answer>\n%s\n</reference_answer>\n\n", text(e.FinalResponse))
	fmt.Fprintf(&b, "<agent_answer>\n%s\n</agent_answer>\n\n", text(a.FinalResponse))
	b.WriteString("The agent's answer is valid when it agrees with the reference answer on every fact, number and conclusion that matters to the request. " +
		"Wording, order, length and format may differ, and extra detail is fine unless it contradicts the reference or the request. " +
		"It is invalid when it misses, changes or contradicts something that matters, or does not answer the request.\n\n")
	b.WriteString(validityFormat)
	return b.String(), nil
}

// validityBlock finds the verdict the way tRPC-Agent-Go's scorer does:
// "reasoning:" then "is_the_agent_response_valid:" up to the end of its
// line.
var validityBlock = regexp.MustCompile(`(?ms)reasoning:\s*(.*?)\s*is_the_agent_response_valid:\s*(.*?)\s*$`)

// scoreValidity reads a valid/invalid verdict: 1 for "valid" (any case),
// 0 for anything else. A reply without the fields may instead be a JSON
// object with them (ADK's judges write one); a reply with neither is an
// error.
func scoreValidity(_ *evalset.Metric, reply string) (*judgeScore, error) {
	var reasoning, label string
	if m := validityBlock.FindStringSubmatch(reply); m != nil {
		reasoning, label = strings.TrimSpace(m[1]), m[2]
	} else {
		var obj struct {
			Reasoning string `json:"reasoning"`
			Label     string `json:"is_the_agent_response_valid"`
		}
		if err := decodeReplyJSON(reply, &obj); err != nil || obj.Label == "" {
			return nil, errors.New("no reasoning and is_the_agent_response_valid fields found in the judge's reply")
		}
		reasoning, label = strings.TrimSpace(obj.Reasoning), obj.Label
	}
	sc := &judgeScore{reason: reasoning}
	if strings.ToLower(strings.TrimSpace(label)) == "valid" {
		sc.score = 1
	}
	return sc, nil
}

// visibleRubrics are the metric's rubrics with content, in order.
func visibleRubrics(m *evalset.Metric) []*evalset.Rubric {
	if m.Criterion == nil || m.Criterion.LLMJudge == nil {
		return nil
	}
	var out []*evalset.Rubric
	for _, r := range m.Criterion.LLMJudge.Rubrics {
		if r != nil && r.Content != nil {
			out = append(out, r)
		}
	}
	return out
}

// checkRubrics requires the rubrics a metric has to carry distinct,
// non-empty ids (case rubrics may add more when scoring).
func checkRubrics(m *evalset.Metric) error {
	seen := map[string]bool{}
	for i, r := range visibleRubrics(m) {
		id := strings.TrimSpace(r.ID)
		switch {
		case id == "":
			return fmt.Errorf("criterion.llmJudge.rubrics[%d]: id is empty", i)
		case seen[id]:
			return fmt.Errorf("criterion.llmJudge.rubrics[%d]: id %q is used twice", i, id)
		case strings.TrimSpace(r.Content.Text) == "":
			return fmt.Errorf("criterion.llmJudge.rubrics[%d]: content.text is empty", i)
		}
		seen[id] = true
	}
	return nil
}

// rubricList writes the rubrics one a line, "id: text".
func rubricList(m *evalset.Metric) (string, error) {
	rubrics := visibleRubrics(m)
	if len(rubrics) == 0 {
		return "", errors.New("llm judge rubrics are required")
	}
	if err := checkRubrics(m); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range rubrics {
		fmt.Fprintf(&b, "%s: %s\n", strings.TrimSpace(r.ID), r.Content.Text)
	}
	return b.String(), nil
}

const rubricFormat = `Reply with one JSON object and nothing else:
{"rubricScores": [{"id": "<the rubric's id>", "score": <1 if it is met, 0 if not>, "reason": "<one or two sentences>"}]}
with exactly one entry for each rubric.`

// rubricResponsePrompt asks which rubrics the agent's final response meets.
func rubricResponsePrompt(m *evalset.Metric, actuals, _ []*evalset.Invocation) (string, error) {
	rubrics, err := rubricList(m)
	if err != nil {
		return "", err
	}
	a := last(actuals)
	var b strings.Builder
	b.WriteString("You check the answer an AI agent gave to a user against rubrics: independent requirements, each met or not.\n\n")
	fmt.Fprintf(&b, "<user_request>\n%s\n</user_request>\n\n<agent_answer>\n%s\n</agent_answer>\n\n", text(a.UserContent), text(a.FinalResponse))
	fmt.Fprintf(&b, "<rubrics>\n%s</rubrics>\n\n", rubrics)
	b.WriteString("Judge each rubric on its own, from the request and the answer alone: it is met only when the answer clearly satisfies it.\n\n")
	b.WriteString(rubricFormat)
	return b.String(), nil
}

// knowledgeTools are the retrieval tools whose results knowledge recall
// judges (tRPC-Agent-Go's knowledge search tools).
var knowledgeTools = map[string]bool{"knowledge_search": true, "knowledge_search_with_agentic_filter": true}

// knowledgeRecallPrompt asks which rubrics the agent's retrieved knowledge
// supports.
func knowledgeRecallPrompt(m *evalset.Metric, actuals, _ []*evalset.Invocation) (string, error) {
	rubrics, err := rubricList(m)
	if err != nil {
		return "", err
	}
	a := last(actuals)
	var retrieved strings.Builder
	for _, t := range a.Tools {
		if t == nil || !knowledgeTools[t.Name] {
			continue
		}
		out, err := json.Marshal(t.Result)
		if err != nil {
			return "", fmt.Errorf("tool %s result: %w", t.Name, err)
		}
		retrieved.Write(out)
		retrieved.WriteByte('\n')
	}
	if retrieved.Len() == 0 {
		retrieved.WriteString("No knowledge search results were found.\n")
	}
	var b strings.Builder
	b.WriteString("An AI agent searched a knowledge base to answer a user. You check whether what it retrieved supports each rubric: a fact or piece of information the answer needs.\n\n")
	fmt.Fprintf(&b, "<user_request>\n%s\n</user_request>\n\n<retrieved_knowledge>\n%s</retrieved_knowledge>\n\n", text(a.UserContent), retrieved.String())
	fmt.Fprintf(&b, "<rubrics>\n%s</rubrics>\n\n", rubrics)
	b.WriteString("A rubric is met only when the retrieved knowledge itself contains or clearly supports it; what the agent may know otherwise does not count.\n\n")
	b.WriteString(rubricFormat)
	return b.String(), nil
}

// rubricBlock is the older tRPC-Agent-Go reply format: ID, Rubric,
// Evidence, Reason and a yes/no Verdict per rubric.
var rubricBlock = regexp.MustCompile(`(?ms)ID:\s*(.*?)\s*Rubric:\s*(.*?)\s*Evidence:\s*(.*?)\s*Reason:\s*(.*?)\s*Verdict:\s*(.*?)\s*$`)

// scoreRubrics reads per-rubric verdicts: the JSON object
// {"rubricScores": [{"id", "score" (0 to 1), "reason"}]} tRPC-Agent-Go's
// judges return, or its older ID/Rubric/Evidence/Reason/Verdict blocks
// (verdict yes scores 1). Every rubric must be scored exactly once. The
// sample's score is the rubrics' average.
func scoreRubrics(m *evalset.Metric, reply string) (*judgeScore, error) {
	items, err := rubricItems(reply)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, r := range visibleRubrics(m) {
		want[strings.TrimSpace(r.ID)] = true
	}
	sc := &judgeScore{}
	seen := map[string]bool{}
	reasons := make([]string, 0, len(items))
	total := 0.0
	for _, it := range items {
		switch {
		case it.ID == "":
			return nil, errors.New("rubric score id is empty")
		case seen[it.ID]:
			return nil, fmt.Errorf("duplicate rubric score id %q", it.ID)
		case len(want) > 0 && !want[it.ID]:
			return nil, fmt.Errorf("unexpected rubric score id %q", it.ID)
		case it.Score < 0 || it.Score > 1:
			return nil, fmt.Errorf("rubric %q: score %v is not between 0 and 1", it.ID, it.Score)
		}
		seen[it.ID] = true
		sc.rubrics = append(sc.rubrics, &result.RubricScore{ID: it.ID, Reason: it.Reason, Score: it.Score})
		reasons = append(reasons, it.Reason)
		total += it.Score
	}
	for _, id := range sortedKeys(want) {
		if !seen[id] {
			return nil, fmt.Errorf("missing rubric score id %q", id)
		}
	}
	sc.score = total / float64(len(items))
	sc.reason = strings.Join(reasons, "\n")
	return sc, nil
}

type rubricItem struct {
	ID     string
	Score  float64
	Reason string
}

// rubricItems parses a rubric reply in either format.
func rubricItems(reply string) ([]rubricItem, error) {
	var obj struct {
		RubricScores []struct {
			ID     *string  `json:"id"`
			Score  *float64 `json:"score"`
			Reason *string  `json:"reason"`
		} `json:"rubricScores"`
	}
	jerr := decodeReplyJSON(reply, &obj)
	if jerr == nil && len(obj.RubricScores) > 0 {
		items := make([]rubricItem, len(obj.RubricScores))
		for i, r := range obj.RubricScores {
			switch {
			case r.ID == nil:
				return nil, errors.New("rubric score id is empty")
			case r.Score == nil:
				return nil, fmt.Errorf("rubric %q: score is required", *r.ID)
			case r.Reason == nil:
				return nil, fmt.Errorf("rubric %q: reason is required", *r.ID)
			}
			items[i] = rubricItem{ID: strings.TrimSpace(*r.ID), Score: *r.Score, Reason: *r.Reason}
		}
		return items, nil
	}
	blocks := rubricBlock.FindAllStringSubmatch(reply, -1)
	if len(blocks) == 0 {
		if jerr == nil {
			return nil, errors.New("rubricScores is empty")
		}
		return nil, fmt.Errorf("no rubric scores in the judge's reply: %w", jerr)
	}
	items := make([]rubricItem, len(blocks))
	for i, b := range blocks {
		items[i] = rubricItem{ID: strings.TrimSpace(b[1]), Reason: strings.TrimSpace(b[4])}
		if strings.ToLower(strings.TrimSpace(b[5])) == "yes" {
			items[i].Score = 1
		}
	}
	return items, nil
}

// maxReplyBytes bounds the judge reply parsed as JSON.
const maxReplyBytes = 1 << 20

// decodeReplyJSON reads a JSON reply, bare or in a code fence.
func decodeReplyJSON(reply string, dst any) error {
	s := strings.TrimSpace(reply)
	if len(s) > maxReplyBytes {
		return fmt.Errorf("the reply is longer than %d bytes", maxReplyBytes)
	}
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimPrefix(strings.TrimPrefix(s, "json"), "JSON")
		s = strings.TrimSpace(strings.TrimSuffix(s, "```"))
	}
	if s == "" {
		return errors.New("empty reply")
	}
	return json.Unmarshal([]byte(s), dst)
}
