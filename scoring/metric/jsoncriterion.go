package metric

import (
	"fmt"

	"github.com/proctor-eval/proctor/evalset"
)

// matchJSON compares an actual JSON value with an expected one as
// tRPC-Agent-Go's JSONCriterion does: ignore, then valid (the actual value
// must be valid JSON), then skip, then exact comparison under the only or
// ignore tree with the number tolerance. It returns whether they match and,
// when explaining, why not.
func matchJSON(j *evalset.JSONCriterion, actual, expected any, explain bool) (bool, string) {
	if j.Ignore {
		return true, ""
	}
	c := jsonCompare{tolerance: defaultNumberTolerance, explain: explain}
	if len(j.OnlyTree) > 0 && len(j.IgnoreTree) > 0 {
		return c.fail("onlyTree and ignoreTree cannot both be set")
	}
	if j.Valid {
		if err := validJSON(actual); err != nil {
			return c.fail("actual value is not valid JSON: %v", err)
		}
	}
	if j.MatchStrategy == evalset.JSONSkip {
		return true, ""
	}
	a, err := decodeRaw(actual)
	if err != nil {
		return c.fail("actual value is not valid JSON: %v", err)
	}
	e, err := decodeRaw(expected)
	if err != nil {
		return c.fail("expected value is not valid JSON: %v", err)
	}
	if j.NumberTolerance != nil {
		c.tolerance = *j.NumberTolerance
	}
	switch j.MatchStrategy {
	case evalset.JSONExact, "":
	default:
		return c.fail("unknown match strategy %q", j.MatchStrategy)
	}
	if len(j.OnlyTree) > 0 {
		return c.withOnlyTree(a, e, j.OnlyTree)
	}
	return c.withIgnoreTree(a, e, j.IgnoreTree)
}

// checkJSON validates a JSON criterion.
func checkJSON(j *evalset.JSONCriterion) error {
	if j == nil || j.Ignore {
		return nil
	}
	if j.CompareName != "" {
		return fmt.Errorf("compareName %q names a Go function registered in tRPC-Agent-Go code; proctor cannot run it: remove it", j.CompareName)
	}
	switch j.MatchStrategy {
	case "", evalset.JSONExact, evalset.JSONSkip:
	default:
		return fmt.Errorf("matchStrategy %q is not one of exact, skip", j.MatchStrategy)
	}
	if len(j.OnlyTree) > 0 && len(j.IgnoreTree) > 0 {
		return fmt.Errorf("onlyTree and ignoreTree cannot both be set: keep one")
	}
	if j.NumberTolerance != nil && !(*j.NumberTolerance >= 0) {
		return fmt.Errorf("numberTolerance %v must be a number >= 0", *j.NumberTolerance)
	}
	if err := checkTree("onlyTree", j.OnlyTree, 0); err != nil {
		return err
	}
	return checkTree("ignoreTree", j.IgnoreTree, 0)
}

// maxTreeDepth bounds the nesting of a only or ignore tree.
const maxTreeDepth = 64

// checkTree requires every leaf of a tree to be a boolean.
func checkTree(path string, tree map[string]any, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%s is nested deeper than %d levels", path, maxTreeDepth)
	}
	for _, k := range sortedKeys(tree) {
		switch v := tree[k].(type) {
		case bool:
		case map[string]any:
			if err := checkTree(path+"."+k, v, depth+1); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s.%s is %s: want true, false or an object", path, k, show(v))
		}
	}
	return nil
}
