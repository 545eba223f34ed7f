package banking

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/proctor-eval/proctor/domains"
)

// tau2 merges a task's initialization_data into its database as
// json.loads read it: new records keep the key order of the task file, and
// the read tools print records in that order. proctor's tasks hold it as
// a Go map, which has none; so the package reads the files again, in
// order, and Merge takes the ordered copy of the data it is given.

// orderedAgentData reads each task's initialization_data.agent_data in
// file order, by task id (tasks without it are absent).
func orderedAgentData(dir string) (map[string]*Obj, error) {
	files, err := filepath.Glob(filepath.Join(dir, TasksDir, "task_*.json"))
	if err != nil {
		return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
	}
	out := map[string]*Obj{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %w", err)
		}
		v, err := parseJSON(string(raw), false)
		if err != nil {
			return nil, fmt.Errorf("tau2 banking_knowledge: %s: %w", filepath.Base(f), err)
		}
		task, _ := v.(*Obj)
		id, _ := task.Get("id")
		data := task.Sub("initial_state").Sub("initialization_data").Sub("agent_data")
		if s, ok := id.(string); ok && data != nil {
			out[s] = data
		}
	}
	return out, nil
}

// setupOrdered is the domain's Setup: setupTask, and the task's ordered
// initialization data for Merge to use.
func setupOrdered(ordered map[string]*Obj) func(*DB, *domains.Task) error {
	return func(db *DB, task *domains.Task) error {
		db.initData = nil
		if task != nil {
			db.initData = ordered[task.ID]
		}
		return setupTask(db, task)
	}
}

// orderedInit is the ordered copy of src when Setup left one with the
// same content (as Python compares it), else src.
func (db *DB) orderedInit(src *Obj) *Obj {
	ordered := db.initData
	db.initData = nil
	if ordered != nil && pyEqual(ordered, src) {
		return deepCopy(ordered).(*Obj)
	}
	return src
}
