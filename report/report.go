package report

import (
	"encoding/json"
	"io"

	"github.com/proctor-eval/proctor/result"
)

// Format is a rendering of results; its values are the constants below,
// spelt as the CLI's --format flag takes them. It is a string type so that
// a flag's value converts to it directly.
type Format string

// Formats of results: Write renders Table, JSON and Markdown; WriteTau2
// renders Tau2.
const (
	// Table is aligned text columns for terminals: the metrics, then a row
	// per task.
	Table Format = "table"
	// JSON is the result.Evaluation itself, indented.
	JSON Format = "json"
	// Markdown is for pull requests and chat: the metrics, a table of tasks
	// and one of the failed simulations with why each failed.
	Markdown Format = "markdown"
	// Tau2 is the format of tau2-bench's results.json (see WriteTau2).
	Tau2 Format = "tau2"
)

// Formats lists the formats of an evaluation's results, for flags and
// their messages.
func Formats() []Format { return []Format{Table, JSON, Markdown, Tau2} }

// writeJSON writes v as indented JSON, the JSON format of every report.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Write renders eval in format (Table, JSON or Markdown; anything else is
// Table).
func Write(w io.Writer, format Format, eval *result.Evaluation) error {
	switch format {
	case JSON:
		return writeJSON(w, eval)
	case Markdown:
		return renderMarkdown(w, eval)
	default:
		return renderTable(w, eval)
	}
}
