package banking

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
)

// The knowledge base's directories in the domain directory: the documents
// and the prompt templates the retrieval configurations compose.
const (
	DocumentsDir = "documents"
	PromptsDir   = "prompts"
)

// DefaultRetrievalConfig is tau2's default retrieval configuration
// (DEFAULT_RETRIEVAL_VARIANT), which needs an embeddings service and a
// shell sandbox: proctor refuses it and asks for one it offers.
const DefaultRetrievalConfig = "alltools"

// golden_retrieval's domain-wide policy in tau2's results, where each
// simulation has its own (get_environment_info's text).
const taskSpecificPolicy = "(Policy is task-specific - see 'policy' field in each simulation)"

// NewWithRetrieval builds the domain as tau2's get_environment does for a
// retrieval configuration ("" is tau2's default): the agent's tools are
// the configuration's retrieval tools and the banking tools, its policy
// the configuration's prompt (for golden_retrieval, one per task, with the
// task's required documents). A configuration that ranks by embeddings
// takes e (knowledge.NewEmbedder), with which the documents are embedded
// before the domain is returned; without one (the others take nil) its
// KB_search fails, which is enough to show, score again or export a
// stored evaluation. An unknown
// configuration, or one proctor does not offer, is an error that lists
// those it offers.
func NewWithRetrieval(dir, config string, e knowledge.Embedder) (*domains.Domain, error) {
	cfg, err := knowledge.Resolve(config, knowledge.Options{})
	if err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	base, err := knowledge.Load(filepath.Join(dir, DocumentsDir))
	if err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	// The documents are embedded now, so that a run whose embeddings
	// service fails stops before its first simulation.
	if e != nil {
		if err := base.Prepare(context.Background(), cfg, e); err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
		}
	}
	prompts := filepath.Join(dir, PromptsDir)
	policy := taskSpecificPolicy
	var taskPolicy func(*domains.Task) (string, error)
	if cfg.Prompt == knowledge.PromptGolden {
		required, err := requiredDocuments(dir)
		if err != nil {
			return nil, err
		}
		if _, err := base.Policy(prompts, cfg, nil); err != nil { // the template is there
			return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
		}
		taskPolicy = func(task *domains.Task) (string, error) {
			var refs []string
			if task != nil {
				refs = required[task.ID]
			}
			return base.Policy(prompts, cfg, refs)
		}
	} else if policy, err = base.Policy(prompts, cfg, nil); err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	return build(dir, policy, ToolsWith(base.Toolset(cfg, knowledge.WithEmbedder(e))), taskPolicy)
}

// requiredDocuments reads each task's required_documents (golden
// retrieval's prompt inlines them), by task id.
func requiredDocuments(dir string) (map[string][]string, error) {
	files, err := taskFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
		}
		var t struct {
			ID                string   `json:"id"`
			RequiredDocuments []string `json:"required_documents"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %s: required_documents: %w", filepath.Base(f), err)
		}
		out[t.ID] = t.RequiredDocuments
	}
	return out, nil
}

// Files are the single files the domain reads from its directory, beside
// its task files and documents: the database and the prompt templates of
// the retrieval configurations proctor offers, with their components.
func Files() []string {
	files := []string{DBFile}
	for _, name := range knowledge.ConfigNames() {
		if cfg, err := knowledge.Resolve(name, knowledge.Options{}); err == nil {
			files = append(files, PromptsDir+"/"+cfg.Template)
		}
	}
	return append(files, PromptsDir+"/components/policy_header.md", PromptsDir+"/components/additional_instructions.md")
}

// TaskIDs returns the tasks' ids in file order, reading only their ids.
func TaskIDs(dir string) ([]string, error) {
	files, err := taskFiles(dir)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
		}
		var t struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %s: %w", filepath.Base(f), err)
		}
		ids = append(ids, t.ID)
	}
	return ids, nil
}
