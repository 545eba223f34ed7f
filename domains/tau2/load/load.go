// Package load knows the tau2-bench domains proctor implements and how to
// find them in a directory laid out like tau2's data/tau2/domains (one
// subdirectory per domain: airline/, retail/...): which files each needs,
// which are missing, and what a domain holds (its tasks per split, its
// tools) without loading its database.
package load

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/airline"
	"github.com/proctor-eval/proctor/domains/tau2/banking"
	"github.com/proctor-eval/proctor/domains/tau2/internal/taskfile"
	"github.com/proctor-eval/proctor/domains/tau2/knowledge"
	tau2mock "github.com/proctor-eval/proctor/domains/tau2/mock"
	"github.com/proctor-eval/proctor/domains/tau2/retail"
	"github.com/proctor-eval/proctor/domains/tau2/telecom"
)

// DefaultSplit is the split tau2 evaluates unless told otherwise.
const DefaultSplit = taskfile.DefaultSplit

// Domain is a tau2 domain proctor implements.
type Domain struct {
	Name        string
	Description string
	// Subdir is the domain's directory under the data root, when it is not
	// its name (tau2's mock lives in mock/, named tau2-mock beside proctor's
	// own mock).
	Subdir string
	// Files are the data files New reads from the domain's directory.
	Files []string
	// TasksFile and SplitsFile name the task list and the split map among
	// Files.
	TasksFile, SplitsFile string
	// New builds the domain from its directory, with the tasks of a split
	// ("" for DefaultSplit). It reads and decodes everything, the database
	// included.
	New func(dir, split string) (*domains.Domain, error)
	// NewWith, when set, builds the domain with Options (New is then
	// NewWith without any); a domain without it takes no Options.
	NewWith func(dir, split string, o Options) (*domains.Domain, error)
	// RetrievalConfigs are the retrieval configurations NewWith accepts,
	// for listings; none for a domain without them.
	RetrievalConfigs []string
	// taskIDs, when set, lists the task ids of a domain that keeps one
	// file per task and has no splits (banking_knowledge): TasksFile and
	// SplitsFile are then empty, and its one split is DefaultSplit.
	taskIDs func(dir string) ([]string, error)
	// toolNames lists the domain's tools without its data.
	toolNames func() ([]string, error)
}

// Options are a domain's settings beyond its task split.
type Options struct {
	// RetrievalConfig is banking_knowledge's retrieval configuration, as
	// tau2's --retrieval-config names it ("": tau2's default).
	RetrievalConfig string
	// Embedder embeds the documents and queries of a retrieval
	// configuration that ranks by embeddings (knowledge.NewEmbedder);
	// nil for the others.
	Embedder knowledge.Embedder
}

// Build builds the domain from its directory with the tasks of a split
// and its options; options a domain does not take are an error.
func (d Domain) Build(dir, split string, o Options) (*domains.Domain, error) {
	if d.NewWith != nil {
		return d.NewWith(dir, split, o)
	}
	if o.RetrievalConfig != "" || o.Embedder != nil {
		return nil, fmt.Errorf("domain %s has no retrieval configurations (--retrieval-config is banking_knowledge's)", d.Name)
	}
	return d.New(dir, split)
}

// table lists the tau2 domains proctor implements. A function, not a
// package variable, so nothing can change the set at run time.
func table() []Domain {
	return []Domain{
		{
			Name: airline.Name, Description: airline.Description,
			Files:     []string{airline.DBFile, airline.PolicyFile, airline.SplitsFile, airline.TasksFile},
			TasksFile: airline.TasksFile, SplitsFile: airline.SplitsFile,
			New: airline.New,
			toolNames: func() ([]string, error) {
				return toolNames(domains.Spec[airline.DB]{Name: airline.Name, DB: []byte(`{"flights": {}, "users": {}, "reservations": {}}`), Tools: airline.Tools()})
			},
		},
		{
			Name: banking.Name, Description: banking.Description,
			Files: banking.Files(),
			New: func(dir, split string) (*domains.Domain, error) {
				return newBanking(dir, split, Options{})
			},
			NewWith:          newBanking,
			RetrievalConfigs: knowledge.ConfigNames(),
			taskIDs:          banking.TaskIDs,
			toolNames: func() ([]string, error) {
				return toolNames(domains.Spec[banking.DB]{Name: banking.Name, DB: []byte(`{}`), Tools: banking.Tools()})
			},
		},
		{
			Name: retail.Name, Description: retail.Description,
			Files:     []string{retail.DBFile, retail.PolicyFile, retail.SplitsFile, retail.TasksFile},
			TasksFile: retail.TasksFile, SplitsFile: retail.SplitsFile,
			New: retail.New,
			toolNames: func() ([]string, error) {
				return toolNames(domains.Spec[retail.DB]{Name: retail.Name, DB: []byte(`{"products": {}, "users": {}, "orders": {}}`), Tools: retail.Tools()})
			},
		},
		{
			Name: tau2mock.Name, Description: tau2mock.Description, Subdir: "mock",
			Files:     []string{tau2mock.DBFile, tau2mock.UserDBFile, tau2mock.PolicyFile, tau2mock.SplitsFile, tau2mock.TasksFile},
			TasksFile: tau2mock.TasksFile, SplitsFile: tau2mock.SplitsFile,
			New: tau2mock.New,
			toolNames: func() ([]string, error) {
				return toolNames(domains.Spec[tau2mock.DB]{Name: tau2mock.Name, DB: []byte(`{"tasks": {}, "users": {}}`), Tools: tau2mock.Tools()})
			},
		},
		{
			Name: telecom.Name, Description: telecom.Description,
			Files: []string{telecom.DBFile, telecom.UserDBFile, telecom.MainPolicyFile, telecom.TechSupportManualFile,
				telecom.SplitsFile, telecom.TasksFile},
			TasksFile: telecom.TasksFile, SplitsFile: telecom.SplitsFile,
			New: telecom.New,
			toolNames: func() ([]string, error) {
				return toolNames(domains.Spec[telecom.DB]{Name: telecom.Name, DB: []byte(`{}`), Tools: telecom.Tools()})
			},
		},
	}
}

// newBanking builds banking_knowledge for a retrieval configuration. It
// has no splits but DefaultSplit, all its tasks.
func newBanking(dir, split string, o Options) (*domains.Domain, error) {
	if split != "" && split != DefaultSplit {
		return nil, fmt.Errorf("%s has no split %q", banking.Name, split)
	}
	return banking.NewWithRetrieval(dir, o.RetrievalConfig, o.Embedder)
}

// toolNames builds a domain from an empty database and no tasks, only to read
// the names of its tools.
func toolNames[DB any](spec domains.Spec[DB]) ([]string, error) {
	d, err := domains.NewDomain(spec)
	if err != nil {
		return nil, err
	}
	return d.ToolNames(), nil
}

// Domains returns the tau2 domains proctor implements, in name order.
func Domains() []Domain { return table() }

// Lookup returns the tau2 domain with this name.
func Lookup(name string) (Domain, bool) {
	for _, d := range table() {
		if d.Name == name {
			return d, true
		}
	}
	return Domain{}, false
}

// Names returns the names of the tau2 domains proctor implements.
func Names() []string {
	all := table()
	names := make([]string, len(all))
	for i, d := range all {
		names[i] = d.Name
	}
	return names
}

// Dir is the domain's directory under root.
func (d Domain) Dir(root string) string { return filepath.Join(root, cmp.Or(d.Subdir, d.Name)) }

// Missing returns the data files of the domain that are not regular files
// under root (all of them when root is "").
func (d Domain) Missing(root string) []string {
	if root == "" {
		return slices.Clone(d.Files)
	}
	var missing []string
	for _, f := range d.Files {
		if fi, err := os.Stat(filepath.Join(d.Dir(root), f)); err != nil || !fi.Mode().IsRegular() {
			missing = append(missing, f)
		}
	}
	return missing
}

// Split is a split's name and its tasks' ids, in task file order.
type Split struct {
	Name    string
	TaskIDs []string
}

// Info describes a domain's data without loading its database.
type Info struct {
	// TaskIDs are every task's id, in task file order.
	TaskIDs []string
	// Splits are the domain's splits: DefaultSplit first, then train and
	// test, then any others by name.
	Splits []Split
	Tools  []string
}

// Split returns the split with this name.
func (i Info) Split(name string) (Split, bool) {
	for _, s := range i.Splits {
		if s.Name == name {
			return s, true
		}
	}
	return Split{}, false
}

// SplitNames returns the names of the splits, in Splits order.
func (i Info) SplitNames() []string {
	names := make([]string, len(i.Splits))
	for j, s := range i.Splits {
		names[j] = s.Name
	}
	return names
}

// Describe reads the domain's task and split files under root (not its
// database, the bulk of its data) and lists its tools.
func (d Domain) Describe(root string) (Info, error) {
	var info Info
	if d.taskIDs != nil {
		return d.describeTaskFiles(root)
	}
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(d.Dir(root), name))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		return b, nil
	}
	rawTasks, err := read(d.TasksFile)
	if err != nil {
		return info, err
	}
	var tasks []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(rawTasks, &tasks); err != nil {
		return info, fmt.Errorf("%s: %s: %w", d.Name, d.TasksFile, err)
	}
	have := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		info.TaskIDs = append(info.TaskIDs, t.ID)
		have[t.ID] = true
	}
	rawSplits, err := read(d.SplitsFile)
	if err != nil {
		return info, err
	}
	var splits map[string][]string
	if err := json.Unmarshal(rawSplits, &splits); err != nil {
		return info, fmt.Errorf("%s: %s: %w", d.Name, d.SplitsFile, err)
	}
	for name, ids := range splits {
		want := make(map[string]bool, len(ids))
		for _, id := range ids {
			if !have[id] {
				return info, fmt.Errorf("%s: %s: split %q names task %q, which %s lacks", d.Name, d.SplitsFile, name, id, d.TasksFile)
			}
			want[id] = true
		}
		s := Split{Name: name}
		for _, id := range info.TaskIDs { // task file order, as New keeps them
			if want[id] {
				s.TaskIDs = append(s.TaskIDs, id)
				delete(want, id)
			}
		}
		info.Splits = append(info.Splits, s)
	}
	slices.SortFunc(info.Splits, func(a, b Split) int {
		if ra, rb := splitRank(a.Name), splitRank(b.Name); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Name, b.Name)
	})
	if info.Tools, err = d.toolNames(); err != nil {
		return info, fmt.Errorf("%s: tools: %w", d.Name, err)
	}
	return info, nil
}

// describeTaskFiles describes a domain of one file per task and no splits.
func (d Domain) describeTaskFiles(root string) (Info, error) {
	ids, err := d.taskIDs(d.Dir(root))
	if err != nil {
		return Info{}, err
	}
	info := Info{TaskIDs: ids, Splits: []Split{{Name: DefaultSplit, TaskIDs: ids}}}
	if info.Tools, err = d.toolNames(); err != nil {
		return info, fmt.Errorf("%s: tools: %w", d.Name, err)
	}
	return info, nil
}

func splitRank(name string) int {
	switch name {
	case DefaultSplit:
		return 0
	case "train":
		return 1
	case "test":
		return 2
	}
	return 3
}
