package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Output formats of Write.
const (
	FormatText     = "table"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
	FormatJUnit    = "junit"
)

// Formats lists Write's formats.
func Formats() []string { return []string{FormatText, FormatJSON, FormatMarkdown, FormatJUnit} }

// Write renders a report: FormatText (a summary, the skipped checks with
// why, and every failure, for a terminal), FormatJSON (the Report),
// FormatMarkdown (a summary, the categories, the skipped checks and a table
// of failures with remediation) or FormatJUnit (a testsuite per category,
// a testcase per result, for CI systems).
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	case FormatMarkdown:
		return writeMarkdown(w, r)
	case FormatJUnit:
		return writeJUnit(w, r)
	case FormatText, "":
		return writeText(w, r)
	}
	return fmt.Errorf("format %q: want %s", format, strings.Join(Formats(), ", "))
}

func checkedNames(r *Report) string {
	var names []string
	for _, in := range r.Interfaces {
		if in.Checked {
			names = append(names, in.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func writeText(w io.Writer, r *Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "agent\t%s\n", agentLabel(r))
	fmt.Fprintf(tw, "level\t%s\n", r.Level)
	fmt.Fprintf(tw, "checks\t%d passed, %d failed (%d MUST, %d SHOULD, %d MAY), %d skipped\n",
		r.Summary.Passed, r.Summary.Failed, r.Summary.MustFailed, r.Summary.ShouldFailed, r.Summary.MayFailed, r.Summary.Skipped)
	fmt.Fprintf(tw, "interfaces\t%s\n", checkedNames(r))
	fmt.Fprintf(tw, "requests\t%d in %.1fs\n", r.Requests, r.DurationMS/1000)
	if r.ID != "" {
		fmt.Fprintf(tw, "id\t%s\n", r.ID)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if skipped := r.Skipped(); len(skipped) > 0 {
		fmt.Fprintf(w, "\nSkipped checks (they did not apply):\n")
		for _, sk := range skipped {
			fmt.Fprintf(w, "  %s [%s]: %s\n", sk.ID, strings.Join(sk.Transports, ", "), sk.Message)
		}
	}
	failed := r.Failed()
	if len(failed) == 0 {
		_, err := fmt.Fprintln(w, "\nNo check failed.")
		return err
	}
	fmt.Fprintf(w, "\nFailed checks:\n")
	for _, f := range failed {
		fmt.Fprintf(w, "\n  %s %s [%s] (%s)\n    %s\n    fix: %s\n", f.Level, f.ID, strings.Join(f.Transports, ", "), f.Spec, f.Message, f.Remediation)
	}
	return nil
}

func agentLabel(r *Report) string {
	if r.AgentName == "" {
		return r.AgentURL
	}
	return fmt.Sprintf("%s (%s)", r.AgentURL, strings.TrimSpace(r.AgentName+" "+r.AgentVersion))
}

// protocolName is the protocol a report checks: "A2A" or "ECP".
func protocolName(r *Report) string {
	if r.AgentProtocol == AgentProtocolECP {
		return "ECP"
	}
	return "A2A"
}

// reportCategories are the categories of a report's protocol, in order.
func reportCategories(r *Report) []Category {
	if r.AgentProtocol == AgentProtocolECP {
		return ECPCategories()
	}
	return Categories()
}

// mdCell makes text safe inside a Markdown table cell, and shown as text
// where Markdown is rendered as HTML (an agent's card and replies are not
// markup).
func mdCell(s string) string {
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", `\|`).Replace(s)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "<br>")
}

func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s conformance: %s\n\n", protocolName(r), mdCell(agentLabel(r)))
	fmt.Fprintf(&b, "**Level: %s** — %d passed, %d failed (%d MUST, %d SHOULD, %d MAY), %d skipped; %d requests in %.1f s.\n\n",
		r.Level, r.Summary.Passed, r.Summary.Failed, r.Summary.MustFailed, r.Summary.ShouldFailed, r.Summary.MayFailed,
		r.Summary.Skipped, r.Requests, r.DurationMS/1000)
	fmt.Fprintf(&b, "Interfaces checked: %s.\n\n", mdCell(checkedNames(r)))
	b.WriteString("| category | passed | failed | skipped |\n| --- | ---: | ---: | ---: |\n")
	for _, c := range reportCategories(r) {
		cs := r.Categories[c]
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", c, cs.Passed, cs.Failed, cs.Skipped)
	}
	failed := r.Failed()
	if len(failed) == 0 {
		b.WriteString("\nNo check failed.\n")
	} else {
		b.WriteString("\n### Failures\n\n| requirement | level | transports | expected / received | remediation |\n| --- | --- | --- | --- | --- |\n")
		for _, f := range failed {
			fmt.Fprintf(&b, "| `%s` %s | %s | %s | %s | %s |\n", f.ID, mdCell(f.Title), f.Level, mdCell(strings.Join(f.Transports, ", ")),
				mdCell(f.Message), mdCell(f.Remediation+" ("+f.Spec+")"))
		}
	}
	if skipped := r.Skipped(); len(skipped) > 0 {
		b.WriteString("\n### Skipped (did not apply)\n\n| requirement | transports | why |\n| --- | --- | --- |\n")
		for _, sk := range skipped {
			fmt.Fprintf(&b, "| `%s` %s | %s | %s |\n", sk.ID, mdCell(sk.Title), mdCell(strings.Join(sk.Transports, ", ")), mdCell(sk.Message))
		}
	}
	fmt.Fprintf(&b, "\nLevel rule: %s\n", r.LevelRule)
	_, err := io.WriteString(w, b.String())
	return err
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

func writeJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: protocolName(r) + " conformance: " + agentLabel(r), Time: fmt.Sprintf("%.3f", r.DurationMS/1000)}
	for _, c := range reportCategories(r) {
		s := junitSuite{Name: string(c)}
		for _, res := range r.Results {
			if res.Category != c {
				continue
			}
			tc := junitCase{Name: fmt.Sprintf("%s [%s] %s", res.ID, strings.Join(res.Transports, ", "), res.Level),
				Classname: strings.ToLower(protocolName(r)) + "." + string(c), SystemOut: res.Message}
			switch res.Status {
			case Fail:
				var text strings.Builder
				fmt.Fprintf(&text, "%s\n\nRequirement (%s): %s\nRemediation: %s\n", res.Message, res.Spec, res.Title, res.Remediation)
				for _, ex := range res.Exchanges {
					fmt.Fprintf(&text, "\n--- %s\n%s\n=> %s %s\n%s\n", ex.Transport, ex.Request, ex.Status, ex.ContentType, ex.Response)
				}
				tc.Failure = &junitFailure{Message: res.Message, Type: string(res.Level), Text: text.String()}
				s.Failures++
			case Skip:
				tc.Skipped = &junitSkipped{Message: res.Message}
				s.Skipped++
			}
			s.Tests++
			s.Cases = append(s.Cases, tc)
		}
		if s.Tests == 0 {
			continue
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Skipped += s.Skipped
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
