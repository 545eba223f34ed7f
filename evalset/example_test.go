package evalset_test

import (
	"fmt"

	"github.com/proctor-eval/proctor/evalset"
)

func ExampleLoad() {
	sets, err := evalset.Load("testdata/trpc", "testdata/cases")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range sets {
		fmt.Printf("%s/%s (%s): %d cases, %d metrics\n", s.AppName, s.ID, s.Format, len(s.Cases), len(s.Metrics))
	}
	// YAML cases name a scorer among the run's metrics: check them once
	// those are known.
	metrics, err := evalset.LoadMetrics("testdata/metrics.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(evalset.Validate(sets, metrics))
	// Output:
	// math-eval-app/math-basic (trpc): 4 cases, 3 metrics
	// cases/cases (yaml): 2 cases, 0 metrics
	// <nil>
}
