package knowledge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var componentRef = regexp.MustCompile(`\{\{component:(\w+)\}\}`)

// Policy composes the agent's policy for a configuration as tau2's prompt
// builders do, from the domain's prompts directory: the template with its
// {{component:NAME}} references replaced by components/NAME.md, then for
// full_kb every document ("## title\n\ncontent", joined by "\n\n---\n\n",
// in the base's order), or for golden_retrieval the documents the task
// requires (by title, else id; unknown ones skipped; "(No documents
// provided)" when none are found).
func (b *Base) Policy(promptsDir string, cfg Config, requiredDocs []string) (string, error) {
	raw, err := os.ReadFile(filepath.Join(promptsDir, cfg.Template))
	if err != nil {
		return "", fmt.Errorf("retrieval config %s: prompt template: %w (want tau2's banking_knowledge/prompts)", cfg.Name, err)
	}
	var missing error
	policy := componentRef.ReplaceAllStringFunc(string(raw), func(ref string) string {
		name := componentRef.FindStringSubmatch(ref)[1]
		text, err := os.ReadFile(filepath.Join(promptsDir, "components", name+".md"))
		if err != nil && missing == nil {
			missing = fmt.Errorf("retrieval config %s: prompt component: %w", cfg.Name, err)
		}
		return string(text)
	})
	if missing != nil {
		return "", missing
	}
	switch cfg.Prompt {
	case PromptFullKB:
		policy = strings.ReplaceAll(policy, "{{full_knowledge_base}}", b.formatDocs(b.docs))
	case PromptGolden:
		policy = strings.ReplaceAll(policy, "{{required_documents}}", b.requiredDocs(requiredDocs))
	}
	if strings.TrimSpace(policy) == "" {
		return "", errors.New("retrieval config " + cfg.Name + ": the policy is empty (check the prompt template)")
	}
	return policy, nil
}

// requiredDocs is golden_retrieval's {{required_documents}}.
func (b *Base) requiredDocs(refs []string) string {
	var docs []Document
	for _, ref := range refs {
		i, ok := b.byTitle[ref]
		if !ok {
			i, ok = b.byID[ref]
		}
		if ok {
			docs = append(docs, b.docs[i])
		}
	}
	if len(docs) == 0 {
		return "(No documents provided)"
	}
	return b.formatDocs(docs)
}

// formatDocs writes documents as tau2 inlines them in a prompt.
func (b *Base) formatDocs(docs []Document) string {
	parts := make([]string, len(docs))
	for i, d := range docs {
		parts[i] = "## " + d.Title + "\n\n" + d.Content
	}
	return strings.Join(parts, "\n\n---\n\n")
}
