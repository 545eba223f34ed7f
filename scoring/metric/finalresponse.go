package metric

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/proctor-eval/proctor/evalset"
)

// matchFinalResponse compares an invocation's final response with the
// expected one as tRPC-Agent-Go's FinalResponseCriterion does: both absent
// match; an absent actual response does not; otherwise every configured
// criterion (json, text, rouge, xml) must match. It returns "" on a match,
// else every mismatch.
func (s *Scorer) matchFinalResponse(c *evalset.FinalResponseCriterion, actual, expected *evalset.Invocation) string {
	if actual.FinalResponse == nil && expected.FinalResponse == nil {
		return ""
	}
	if actual.FinalResponse == nil {
		return "the agent gave no final response"
	}
	got, want := actual.FinalResponse.Text(), expected.FinalResponse.Text()
	var why []string
	if c.JSON != nil && !c.JSON.Ignore {
		if ok, r := matchJSON(c.JSON, rawJSON(got), rawJSON(want), true); !ok {
			why = append(why, "json mismatch: "+r)
		}
	}
	if c.Text != nil && !c.Text.Ignore {
		if r := s.re.matchText(c.Text, got, want, true); r != "" {
			why = append(why, "text mismatch: "+r)
		}
	}
	if c.Rouge != nil && !c.Rouge.Ignore {
		if r := matchRouge(c.Rouge, want, got); r != "" {
			why = append(why, "rouge mismatch: "+r)
		}
	}
	if c.XML != nil && !c.XML.Ignore {
		if r := matchXML(c.XML, got); r != "" {
			why = append(why, "xml mismatch: "+r)
		}
	}
	return strings.Join(why, "; ")
}

// checkFinalResponse validates a final-response criterion.
func checkFinalResponse(c *evalset.FinalResponseCriterion) error {
	if c.CompareName != "" {
		return fmt.Errorf("compareName %q names a Go function registered in tRPC-Agent-Go code; proctor cannot run it: remove it", c.CompareName)
	}
	if c.Text == nil && c.JSON == nil && c.Rouge == nil && c.XML == nil {
		return errors.New("set at least one of text, json, rouge, xml")
	}
	var errs []error
	if err := checkText(c.Text); err != nil {
		errs = append(errs, fmt.Errorf("text: %w", err))
	}
	if err := checkJSON(c.JSON); err != nil {
		errs = append(errs, fmt.Errorf("json: %w", err))
	}
	errs = append(errs, checkRouge(c.Rouge))
	if c.XML != nil && !c.XML.Ignore && c.XML.MatchStrategy != evalset.XMLSkip {
		// tRPC-Agent-Go fails every response under any other strategy,
		// the empty one included.
		errs = append(errs, fmt.Errorf("xml: matchStrategy %q: set it to \"skip\" (the only strategy; valid checks well-formedness)", c.XML.MatchStrategy))
	}
	return errors.Join(errs...)
}

// matchXML applies an XML criterion: with valid, the response must be one
// well-formed XML element (whitespace around it allowed).
func matchXML(c *evalset.XMLCriterion, content string) string {
	if c.MatchStrategy != evalset.XMLSkip {
		return fmt.Sprintf("match strategy %q is not skip", c.MatchStrategy)
	}
	if !c.Valid {
		return ""
	}
	if err := wellFormedXML(content); err != nil {
		return err.Error()
	}
	return ""
}

// wellFormedXML requires exactly one root element and no text outside it.
func wellFormedXML(content string) error {
	if strings.TrimSpace(content) == "" {
		return errors.New("the response is empty")
	}
	dec := xml.NewDecoder(strings.NewReader(content))
	depth, roots := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if roots++; roots > 1 {
					return errors.New("more than one root element")
				}
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && strings.TrimSpace(string(t)) != "" {
				return errors.New("text outside the root element")
			}
		}
	}
	switch {
	case roots == 0:
		return errors.New("no root element")
	case depth != 0:
		return errors.New("unclosed elements")
	}
	return nil
}
