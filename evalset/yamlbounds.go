package evalset

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// yamlBudget is what is left of the MaxValues YAML nodes (aliases
// expanded) that one file, or the cases of one set together, may hold.
type yamlBudget struct {
	left int
	over bool // a document was refused for holding more than is left
}

func newYAMLBudget() *yamlBudget { return &yamlBudget{left: MaxValues} }

// parseYAML parses one YAML document into its node tree, within the bounds
// and the budget, which it spends: first a linear scan bounds the nodes
// the parser may build (yamlMarks), then the tree is checked for depth,
// mapping keys and size with its aliases expanded, so that decoding it
// stays linear too.
func parseYAML(data []byte, budget *yamlBudget) (*yaml.Node, error) {
	if marks, at := yamlMarks(data, budget.left); marks > budget.left {
		budget.over = true
		return nil, fmt.Errorf("YAML has more than %d line breaks and - ? : , [ { characters (by byte %d), any of which may begin a value; at most %d: split the set into several sets", budget.left, at, budget.left)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	if err := checkYAMLDepth(&root, 0); err != nil {
		return nil, err
	}
	s := yamlSizer{anchored: map[*yaml.Node]yamlExtent{}, left: budget.left}
	e, err := s.extent(&root, 0)
	if err != nil {
		budget.over = s.over
		return nil, err
	}
	budget.left -= e.nodes
	return &root, nil
}

// yamlMarks counts, up to limit+1, the marks that may begin a YAML node:
// line breaks and the indicators - ? : , [ {, wherever they are (in
// scalars and comments too), plus one. A node begins at the start of the
// document, after one of them, or (a block mapping's key) on the line of
// the colon after it, and at most two nodes begin at one place, so a
// document has at most twice as many nodes as marks. at is the byte where
// the count stopped.
func yamlMarks(data []byte, limit int) (marks, at int) {
	marks = 1
	for i, c := range data {
		switch c {
		case '\n', '\r', '-', '?', ':', ',', '[', '{':
			marks++
		case 0x85, 0xa8, 0xa9: // NEL, LS, PS: line breaks in UTF-8
			if isUnicodeBreak(data[:i+1]) {
				marks++
			}
		}
		if marks > limit {
			return marks, i
		}
	}
	return marks, len(data)
}

// isUnicodeBreak says whether data ends with NEL, LS or PS in UTF-8.
func isUnicodeBreak(data []byte) bool {
	return bytes.HasSuffix(data, []byte("\u0085")) || bytes.HasSuffix(data, []byte("\u2028")) || bytes.HasSuffix(data, []byte("\u2029"))
}

// yamlSizer measures a node tree as the YAML decoder expands it: an alias
// counts as a copy of its anchor's node.
type yamlSizer struct {
	anchored map[*yaml.Node]yamlExtent // extent of each anchored node
	left     int                       // nodes allowed
	over     bool                      // the nodes are over left
}

// yamlExtent is the extent of a node, aliases expanded: its nodes and the
// depth of its deepest (the depth of an anchored node's deepest below it).
type yamlExtent struct{ nodes, depth int }

// extent measures n at depth, its aliases expanded; an error when n is
// over the nodes left or MaxDepth, or a mapping of n has over
// MaxMappingKeys keys. Aliases are not followed: an anchor comes before
// its aliases, so its extent is known when they are met (an alias inside
// its own anchor counts as one node; the decoder refuses it).
func (s *yamlSizer) extent(n *yaml.Node, depth int) (yamlExtent, error) {
	if n.Kind == yaml.AliasNode {
		e := s.anchored[n.Alias]
		e.nodes, e.depth = max(e.nodes, 1), depth+e.depth
		return e, s.check(e, n)
	}
	if n.Kind == yaml.MappingNode && len(n.Content)/2 > MaxMappingKeys {
		return yamlExtent{}, fmt.Errorf("YAML mapping at line %d has %d keys; at most %d: make it a list, or split it", n.Line, len(n.Content)/2, MaxMappingKeys)
	}
	total := yamlExtent{nodes: 1, depth: depth}
	for _, c := range n.Content {
		e, err := s.extent(c, depth+1)
		if err != nil {
			return yamlExtent{}, err
		}
		total.nodes += e.nodes
		total.depth = max(total.depth, e.depth)
		if err := s.check(total, c); err != nil {
			return yamlExtent{}, err
		}
	}
	if n.Anchor != "" {
		s.anchored[n] = yamlExtent{nodes: total.nodes, depth: total.depth - depth}
	}
	return total, nil
}

// check refuses an extent over the nodes left or MaxDepth, found at node
// at.
func (s *yamlSizer) check(e yamlExtent, at *yaml.Node) error {
	switch {
	case e.depth > MaxDepth:
		return fmt.Errorf("YAML nests deeper than %d levels, aliases expanded (line %d): flatten the data", MaxDepth, at.Line)
	case e.nodes > s.left:
		s.over = true
		return fmt.Errorf("YAML holds more than %d values, aliases expanded (at line %d): split the set, or repeat less through aliases", MaxValues, at.Line)
	}
	return nil
}
