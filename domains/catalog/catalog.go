package catalog

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/proctor-eval/proctor/domains"
	"github.com/proctor-eval/proctor/domains/tau2/load"
)

// EnvTau2Data names the environment variable that points proctor at a
// directory of tau2-bench data laid out like tau2's data/tau2/domains.
const EnvTau2Data = "PROCTOR_TAU2_DATA"

// InstallHint says how to get tau2-bench's data.
const InstallHint = "get it with 'proctor domains install tau2', or point --tau2-data (or " + EnvTau2Data +
	") at a copy of tau2-bench's data/tau2/domains"

// Catalog is every domain proctor can evaluate on: the built-in ones, which
// ship with it, and tau2-bench's (airline, retail, telecom, tau2-mock,
// banking_knowledge),
// whose data proctor does not ship and reads from a directory laid out like
// tau2's data/tau2/domains. A tau2 domain is available when all its files
// are there.
//
// Nothing is loaded before it is asked for: listing a tau2 domain reads its
// task and split files but not its database, and a domain is loaded on first
// use, once per task split and options (load.Options), and kept for the
// life of the Catalog. A Catalog is safe for concurrent use.
type Catalog struct {
	builtin *domains.Registry
	tau2Dir string

	mu    sync.Mutex
	loads map[string]*loading
	infos map[string]load.Info
}

type loading struct {
	done chan struct{}
	d    *domains.Domain
	err  error
}

// Summary describes a domain for listings.
type Summary struct {
	Name        string
	Description string
	// NumTasks is the number of tasks an evaluation runs by default: for a
	// domain with splits, those of its default split.
	NumTasks int
	// DefaultSplit and Splits describe the task splits of a tau2 domain;
	// both are empty for a domain without splits.
	DefaultSplit string
	Splits       []SplitSize
	Tools        []string
	// TaskIDs are the ids of the tasks NumTasks counts.
	TaskIDs []string
	// RetrievalConfigs are the retrieval configurations the domain takes
	// (banking_knowledge's), none for the others.
	RetrievalConfigs []string
}

// SplitSize is a task split's name and number of tasks.
type SplitSize struct {
	Name     string
	NumTasks int
}

// MissingDataError says that a tau2 domain was asked for whose data is not
// there, and how to get it.
type MissingDataError struct {
	Domain string
	// Dir is the domain's directory, "" when no tau2 data directory is set.
	Dir     string
	Missing []string
}

func (e *MissingDataError) Error() string {
	if e.Dir == "" {
		return fmt.Sprintf("domain %s is tau2-bench's, and its data is not installed: %s", e.Domain, InstallHint)
	}
	if fi, err := os.Stat(e.Dir); err != nil || !fi.IsDir() {
		return fmt.Sprintf("domain %s: no tau2-bench data for it at %s: %s", e.Domain, e.Dir, InstallHint)
	}
	return fmt.Sprintf("domain %s: tau2-bench's data is incomplete in %s (missing %s): %s", e.Domain, e.Dir, strings.Join(e.Missing, ", "), InstallHint)
}

// SplitError says that a domain has no task split of that name.
type SplitError struct {
	Domain, Split string
	// Known are the domain's splits; none for a domain without splits.
	Known []string
}

func (e *SplitError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("domain %s has no task splits", e.Domain)
	}
	return fmt.Sprintf("domain %s has no split %q (splits: %s)", e.Domain, e.Split, strings.Join(e.Known, ", "))
}

// New returns a catalog of the built-in domains and of the tau2
// domains whose data is under tau2Dir ("" for none).
func New(tau2Dir string) (*Catalog, error) {
	reg, err := Builtin()
	if err != nil {
		return nil, err
	}
	return &Catalog{builtin: reg, tau2Dir: tau2Dir, loads: map[string]*loading{}, infos: map[string]load.Info{}}, nil
}

// Tau2Dir is the directory the catalog reads tau2 data from ("" for none).
func (c *Catalog) Tau2Dir() string { return c.tau2Dir }

// Names returns the names of the available domains, sorted: the built-in
// ones and the tau2 domains whose files are all present.
func (c *Catalog) Names() []string {
	names := c.builtin.Names()
	for _, d := range load.Domains() {
		if c.tau2Dir != "" && len(d.Missing(c.tau2Dir)) == 0 {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	return names
}

// Get returns a domain with the tasks of its default split.
func (c *Catalog) Get(name string) (*domains.Domain, error) {
	d, _, err := c.GetSplit(name, "")
	return d, err
}

// GetSplit returns a domain with the tasks of a split, and the split's
// name: split itself, the domain's default split when split is "", or ""
// for a domain without splits (where split must be "" or the default
// split's name, "base", which then means all its tasks). A tau2 domain
// whose data is missing is a *MissingDataError, an unknown split a
// *SplitError.
func (c *Catalog) GetSplit(name, split string) (*domains.Domain, string, error) {
	return c.GetWith(name, split, load.Options{})
}

// GetWith is GetSplit with a domain's options (banking_knowledge's
// retrieval configuration); a domain that takes none refuses them.
func (c *Catalog) GetWith(name, split string, opts load.Options) (*domains.Domain, string, error) {
	if d, err := c.builtin.Get(name); err == nil {
		if opts != (load.Options{}) {
			return nil, "", &OptionError{Domain: name, Option: "retrieval config", Value: opts.RetrievalConfig}
		}
		if split != "" && split != load.DefaultSplit {
			return nil, "", &SplitError{Domain: name, Split: split}
		}
		return d, "", nil
	}
	ld, ok := load.Lookup(name)
	if !ok {
		return nil, "", c.unknown(name)
	}
	if split == "" {
		split = load.DefaultSplit
	}
	info, err := c.describe(ld)
	if err != nil {
		return nil, "", err
	}
	if _, ok := info.Split(split); !ok {
		return nil, "", &SplitError{Domain: name, Split: split, Known: info.SplitNames()}
	}
	if ld.NewWith == nil && opts != (load.Options{}) {
		return nil, "", &OptionError{Domain: name, Option: "retrieval config", Value: opts.RetrievalConfig}
	}
	d, err := c.load(ld, split, opts)
	if err != nil {
		return nil, "", err
	}
	return d, split, nil
}

// OptionError says that a domain does not take an option it was given.
type OptionError struct {
	Domain, Option, Value string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("domain %s takes no %s (%q): only banking_knowledge has retrieval configurations", e.Domain, e.Option, e.Value)
}

// Summary describes one domain; a tau2 domain without its data is a
// *MissingDataError.
func (c *Catalog) Summary(name string) (Summary, error) {
	if d, err := c.builtin.Get(name); err == nil {
		s := Summary{Name: d.Name, Description: d.Description, NumTasks: len(d.Tasks), Tools: d.ToolNames()}
		for _, t := range d.Tasks {
			s.TaskIDs = append(s.TaskIDs, t.ID)
		}
		return s, nil
	}
	ld, ok := load.Lookup(name)
	if !ok {
		return Summary{}, c.unknown(name)
	}
	info, err := c.describe(ld)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Name: ld.Name, Description: ld.Description, DefaultSplit: load.DefaultSplit, Tools: info.Tools,
		RetrievalConfigs: ld.RetrievalConfigs}
	for _, sp := range info.Splits {
		s.Splits = append(s.Splits, SplitSize{Name: sp.Name, NumTasks: len(sp.TaskIDs)})
	}
	if def, ok := info.Split(load.DefaultSplit); ok {
		s.TaskIDs = def.TaskIDs
	} else {
		s.TaskIDs = info.TaskIDs
	}
	s.NumTasks = len(s.TaskIDs)
	return s, nil
}

// Summaries describes the available domains in name order. A tau2 domain
// whose files are all there but do not read is left out and reported in
// the error, with the others still described.
func (c *Catalog) Summaries() ([]Summary, error) {
	var (
		out  []Summary
		errs []error
	)
	for _, name := range c.Names() {
		s, err := c.Summary(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// describe reads a tau2 domain's tasks and splits once.
func (c *Catalog) describe(ld load.Domain) (load.Info, error) {
	if missing := ld.Missing(c.tau2Dir); len(missing) > 0 {
		e := &MissingDataError{Domain: ld.Name, Missing: missing}
		if c.tau2Dir != "" {
			e.Dir = ld.Dir(c.tau2Dir)
		}
		return load.Info{}, e
	}
	c.mu.Lock()
	info, ok := c.infos[ld.Name]
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := ld.Describe(c.tau2Dir)
	if err != nil {
		return load.Info{}, err
	}
	c.mu.Lock()
	c.infos[ld.Name] = info
	c.mu.Unlock()
	return info, nil
}

// load builds a tau2 domain's split once; concurrent callers wait for the
// same load. A failed load is not kept: the next call tries again.
func (c *Catalog) load(ld load.Domain, split string, opts load.Options) (*domains.Domain, error) {
	key := ld.Name + "\x00" + split + "\x00" + opts.RetrievalConfig
	if opts.Embedder != nil { // a domain per embedder: its cassette, keys and limits
		key += fmt.Sprintf("\x00%p", opts.Embedder)
	}
	c.mu.Lock()
	if l, ok := c.loads[key]; ok {
		c.mu.Unlock()
		<-l.done
		return l.d, l.err
	}
	l := &loading{done: make(chan struct{})}
	c.loads[key] = l
	c.mu.Unlock()

	l.d, l.err = ld.Build(ld.Dir(c.tau2Dir), split, opts)
	if l.err != nil {
		c.mu.Lock()
		delete(c.loads, key)
		c.mu.Unlock()
	}
	close(l.done)
	return l.d, l.err
}

// UnknownDomainError says that a name is no domain proctor knows.
type UnknownDomainError struct {
	Name string
	// Known are the available domains; NeedData the tau2 domains that
	// would be available with their data.
	Known, NeedData []string
}

func (e *UnknownDomainError) Error() string {
	msg := fmt.Sprintf("unknown domain %q (known: %s", e.Name, strings.Join(e.Known, ", "))
	if len(e.NeedData) > 0 {
		msg += "; with tau2-bench's data also " + strings.Join(e.NeedData, ", ")
	}
	return msg + ")"
}

// unknown is the error for a name that is no domain at all.
func (c *Catalog) unknown(name string) error {
	e := &UnknownDomainError{Name: name, Known: c.Names()}
	for _, d := range load.Domains() {
		if c.tau2Dir == "" || len(d.Missing(c.tau2Dir)) > 0 {
			e.NeedData = append(e.NeedData, d.Name)
		}
	}
	return e
}
