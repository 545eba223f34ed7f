// Package install downloads tau2-bench's domain data (airline, retail, mock,
// telecom and banking_knowledge, MIT licence) into a directory laid out like tau2's
// data/tau2/domains, where proctor's tau2 domains read it, with tau2's user
// simulator guidelines in its user_simulator subdirectory.
//
// The data is never part of proctor. What proctor holds is the list of files
// with the size and SHA-256 of each at tau2-bench's pinned commit ([Commit]):
// every download is checked against it, so a mirror can be used as safely as
// GitHub itself.
//
// An installation is all or nothing. Every file is downloaded into a staging
// directory inside the target directory (so on the same file system),
// verified, and only when all of them are right is each domain's directory
// moved into place with a rename, replacing the previous one. A failed,
// interrupted or corrupted download leaves the target as it was and says
// which file failed and why.
//
// Usage:
//
//	dir, err := install.DefaultDir()
//	if err != nil {
//		log.Fatal(err)
//	}
//	res, err := install.Install(ctx, install.Options{Dir: dir, Progress: os.Stderr})
//	if err != nil {
//		log.Fatal(err) // names each failed file: HTTP status, size, expected and actual SHA-256
//	}
//	fmt.Println("installed", res.Domains, "in", res.Dir)
package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// Limits of one file's download.
const (
	DefaultMaxFileBytes = 64 << 20
	DefaultFileTimeout  = 10 * time.Minute
	DefaultStallTimeout = time.Minute
)

// ManifestFile records, at the top of an installation, where it came from and
// what it holds.
const ManifestFile = "INSTALLED.json"

// stagingPrefix names the staging directories inside the target directory.
const stagingPrefix = ".tau2-install-"

// largeFile is the size from which a download reports its progress.
const largeFile = 1 << 20

// Options says where to install from and to. Zero fields take defaults.
type Options struct {
	// Dir is the directory to install into (default DefaultDir()). It gets
	// a subdirectory per domain, the user simulator's guidelines in
	// GuidelinesDir, and tau2-bench's LICENSE.
	Dir string
	// BaseURL is the URL of tau2's data/tau2/domains directory at Commit
	// (default DefaultBaseURL); a file's URL is BaseURL/<domain>/<file>.
	BaseURL string
	// Client makes the requests (default: one with connection, TLS and
	// response-header timeouts).
	Client *http.Client
	// Progress, when set, receives a line per large file's progress.
	Progress io.Writer
	// MaxFileBytes bounds one file (default DefaultMaxFileBytes).
	MaxFileBytes int64
	// FileTimeout bounds one file's download (default DefaultFileTimeout).
	FileTimeout time.Duration
	// StallTimeout ends a download that receives nothing for this long
	// (default DefaultStallTimeout).
	StallTimeout time.Duration
}

// Result says what was installed.
type Result struct {
	Dir     string
	Domains []string
	Files   int
	Bytes   int64
}

// FileError says why one file could not be installed.
type FileError struct {
	// Path is the file's path in the installation ("airline/db.json").
	Path string
	URL  string
	// Status is the HTTP status when the server answered with an error.
	Status int
	// Want and Got are the expected and the received SHA-256 when the
	// content did not match.
	Want, Got string
	Err       error
	// content is set when the server answered but the file was wrong
	// (status, size, hash): other files are still tried. Otherwise the
	// download itself failed and the installation stops there.
	content bool
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// Error is a failed installation: the files that failed, and how many were
// not tried because the installation stopped at a failed download. Nothing
// was changed in Dir.
type Error struct {
	Dir      string
	Failed   []*FileError
	NotTried int
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "tau2 data install failed; nothing was changed in %s:", e.Dir)
	missing := false
	for _, f := range e.Failed {
		b.WriteString("\n  ")
		b.WriteString(f.Error())
		missing = missing || f.Status == http.StatusNotFound
	}
	if e.NotTried > 0 {
		fmt.Fprintf(&b, "\n  (stopped there; %d more file(s) not downloaded)", e.NotTried)
	}
	if missing {
		b.WriteString("\n  Some mirrors of tau2-bench lack its largest files (airline/db.json, telecom/tasks.json); " +
			"point the base URL at one that has commit " + Commit + " in full.")
	}
	return b.String()
}

// DefaultDir is where proctor keeps tau2's data unless told otherwise: beside
// its results database, in the user data directory ($XDG_DATA_HOME/proctor/tau2,
// ~/.local/share/proctor/tau2 on Linux).
func DefaultDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "proctor", "tau2"), nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "proctor", "tau2"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		if err == nil {
			err = errors.New("home directory is empty")
		}
		return "", fmt.Errorf("tau2 install: cannot choose a data directory: %w", err)
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "Application Support", "proctor", "tau2"), nil
	}
	return filepath.Join(home, ".local", "share", "proctor", "tau2"), nil
}

// FileURL is the URL a file is downloaded from, given the base URL of the
// domains directory. Two kinds of files live outside tau2's data/tau2/domains:
// the LICENSE, at the repository root, and the user simulator's guidelines,
// in data/tau2/user_simulator. For a base URL ending in data/tau2/domains
// they are fetched from there; otherwise from the base URL itself, as they
// lie in an installation (BASE/LICENSE, BASE/user_simulator/...).
func FileURL(baseURL, path string) string {
	base := strings.TrimRight(baseURL, "/")
	if root, ok := strings.CutSuffix(base, "/data/tau2/domains"); ok {
		switch {
		case path == LicenseFile:
			return root + "/" + LicenseFile
		case strings.HasPrefix(path, GuidelinesDir+"/"):
			return root + "/data/tau2/" + path
		}
	}
	return base + "/" + path
}

// Install downloads and verifies every file, then moves the domains into
// place. On failure nothing in the target directory has changed and the
// error is an *Error naming each failed file (unless the failure was not
// about a file: the directory cannot be written, say).
//
// A failed installation leaves no directory it created behind: an empty
// data directory would pass for an installation.
func Install(ctx context.Context, opts Options) (*Result, error) {
	in, err := newInstaller(opts)
	if err != nil {
		return nil, err
	}
	created := missingDirs(in.dir)
	res, err := in.run(ctx)
	if err != nil {
		for _, d := range created {
			_ = os.Remove(d) // only if empty: never what was there before
		}
	}
	return res, err
}

// missingDirs lists dir and those of its parents that do not exist, the
// deepest first: what os.MkdirAll(dir) would create.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// Unreachable reports whether the installation stopped because a download
// failed (the network, the server), rather than on files that came but
// were wrong.
func (e *Error) Unreachable() bool {
	return len(e.Failed) > 0 && !e.Failed[len(e.Failed)-1].content
}

type installer struct {
	Options
	dir string
}

func newInstaller(opts Options) (*installer, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("tau2 install: base URL %q: want an http:// or https:// URL", opts.BaseURL)
	}
	if opts.Dir == "" {
		if opts.Dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("tau2 install: %w", err)
	}
	if opts.Client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = time.Minute
		opts.Client = &http.Client{Transport: t}
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.FileTimeout <= 0 {
		opts.FileTimeout = DefaultFileTimeout
	}
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	return &installer{Options: opts, dir: dir}, nil
}

func (in *installer) run(ctx context.Context) (*Result, error) {
	if err := os.MkdirAll(in.dir, 0o755); err != nil {
		return nil, fmt.Errorf("tau2 install: %w", err)
	}
	removeStale(in.dir)
	staging, err := os.MkdirTemp(in.dir, stagingPrefix)
	if err != nil {
		return nil, fmt.Errorf("tau2 install: %w", err)
	}
	defer os.RemoveAll(staging)
	for _, d := range Domains() {
		if err := os.Mkdir(filepath.Join(staging, d), 0o755); err != nil {
			return nil, fmt.Errorf("tau2 install: %w", err)
		}
	}

	wanted := files()
	var total int64
	for _, f := range wanted {
		total += f.Size
	}
	fmt.Fprintf(in.Progress, "tau2: downloading %d files (%s) of %s at %.7s from %s\n",
		len(wanted), mib(total), Repository, Commit, strings.TrimRight(in.BaseURL, "/"))
	fail := &Error{Dir: in.dir}
	for i, f := range wanted {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("tau2 install: %w; nothing was changed in %s", err, in.dir)
		}
		dst := filepath.Join(staging, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil { // banking_knowledge's documents/, tasks/...
			return nil, fmt.Errorf("tau2 install: %w", err)
		}
		fe := in.fetch(ctx, f, dst)
		if fe == nil {
			continue
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("tau2 install: %w; nothing was changed in %s", ctx.Err(), in.dir)
		}
		fail.Failed = append(fail.Failed, fe)
		if !fe.content {
			fail.NotTried = len(wanted) - i - 1
			break
		}
	}
	if len(fail.Failed) > 0 {
		return nil, fail
	}
	if err := in.writeManifest(filepath.Join(staging, ManifestFile)); err != nil {
		return nil, fmt.Errorf("tau2 install: %w; nothing was changed in %s", err, in.dir)
	}

	// Everything is verified: move it into place, a domain at a time.
	var placed []string
	for _, d := range Domains() {
		if err := replace(filepath.Join(staging, d), filepath.Join(in.dir, d), filepath.Join(staging, ".old-"+d)); err != nil {
			return nil, fmt.Errorf("tau2 install: move %s into place: %w (installed before the failure: %s)", d, err, orNone(placed))
		}
		placed = append(placed, d)
	}
	if err := replace(filepath.Join(staging, GuidelinesDir), filepath.Join(in.dir, GuidelinesDir), filepath.Join(staging, ".old-"+GuidelinesDir)); err != nil {
		return nil, fmt.Errorf("tau2 install: move %s into place: %w (installed before the failure: %s)", GuidelinesDir, err, orNone(placed))
	}
	for _, name := range []string{LicenseFile, ManifestFile} {
		if err := os.Rename(filepath.Join(staging, name), filepath.Join(in.dir, name)); err != nil {
			return nil, fmt.Errorf("tau2 install: %w", err)
		}
	}
	syncDir(in.dir)
	return &Result{Dir: in.dir, Domains: placed, Files: len(wanted), Bytes: total}, nil
}

// fetch downloads one file to dst, checking its size and SHA-256.
func (in *installer) fetch(parent context.Context, f File, dst string) *FileError {
	u := FileURL(in.BaseURL, f.Path)
	fe := func(content bool, format string, a ...any) *FileError {
		return &FileError{Path: f.Path, URL: u, Err: fmt.Errorf(format, a...), content: content}
	}
	ctx, cancel := context.WithTimeout(parent, in.FileTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fe(false, "%v", err)
	}
	req.Header.Set("User-Agent", "proctor-tau2-install")
	// The stall timer covers the wait for the answer too.
	var stalled atomic.Bool
	stall := time.AfterFunc(in.StallTimeout, func() { stalled.Store(true); cancel() })
	defer stall.Stop()
	resp, err := in.Client.Do(req)
	if err != nil {
		return fe(false, "GET %s: %v", u, in.why(ctx, &stalled, err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		e := fe(true, "GET %s: HTTP %s", u, resp.Status)
		e.Status = resp.StatusCode
		return e
	}
	if resp.ContentLength > in.MaxFileBytes {
		return fe(true, "%s announces %d bytes, over the limit of %d", u, resp.ContentLength, in.MaxFileBytes)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != f.Size {
		return fe(true, "%s announces %d bytes, expected %d", u, resp.ContentLength, f.Size)
	}

	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fe(false, "%v", err)
	}
	defer out.Close()
	h := sha256.New()
	r := &watchedReader{r: io.LimitReader(resp.Body, min(f.Size, in.MaxFileBytes)+1), stall: stall, after: in.StallTimeout}
	if f.Size >= largeFile {
		last := time.Now()
		r.progress = func(n int64) {
			if now := time.Now(); now.Sub(last) >= time.Second {
				last = now
				fmt.Fprintf(in.Progress, "tau2: %s %s of %s\n", f.Path, mib(n), mib(f.Size))
			}
		}
	}
	n, err := io.Copy(io.MultiWriter(fileWriter{out}, h), r)
	if err != nil {
		var we *writeError
		if errors.As(err, &we) {
			return fe(false, "%v", we.err)
		}
		return fe(false, "download from %s interrupted after %d of %d bytes: %v", u, n, f.Size, in.why(ctx, &stalled, err))
	}
	switch {
	case n > in.MaxFileBytes:
		return fe(true, "%s sent more than the limit of %d bytes", u, in.MaxFileBytes)
	case n > f.Size:
		return fe(true, "%s sent more than the expected %d bytes", u, f.Size)
	case n < f.Size:
		return fe(true, "%s sent %d bytes, expected %d", u, n, f.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		e := fe(true, "SHA-256 mismatch: expected %s, got %s (%d bytes from %s)", f.SHA256, got, n, u)
		e.Want, e.Got = f.SHA256, got
		return e
	}
	if err := out.Sync(); err != nil {
		return fe(false, "%v", err)
	}
	if err := out.Close(); err != nil {
		return fe(false, "%v", err)
	}
	if f.Size >= largeFile {
		fmt.Fprintf(in.Progress, "tau2: %s %s, verified\n", f.Path, mib(n))
	}
	return nil
}

// why explains a failed request or read: a stall or the file's time limit
// rather than a bare "context canceled".
func (in *installer) why(ctx context.Context, stalled *atomic.Bool, err error) error {
	switch {
	case stalled.Load():
		return fmt.Errorf("nothing received for %v", in.StallTimeout)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("took longer than %v", in.FileTimeout)
	}
	return err
}

// watchedReader restarts the stall timer whenever data arrives, and reports
// progress.
type watchedReader struct {
	r        io.Reader
	stall    *time.Timer
	after    time.Duration
	n        int64
	progress func(int64)
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.stall.Reset(w.after)
		w.n += int64(n)
		if w.progress != nil {
			w.progress(w.n)
		}
	}
	return n, err
}

// writeError marks a failure to write the local copy, as opposed to a
// failure to receive it.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

type fileWriter struct{ f *os.File }

func (w fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

func (in *installer) writeManifest(path string) error {
	type entry struct {
		Path   string `json:"path"`
		Size   int64  `json:"size"`
		SHA256 string `json:"sha256"`
	}
	m := struct {
		Repository  string    `json:"repository"`
		Commit      string    `json:"commit"`
		BaseURL     string    `json:"base_url"`
		InstalledAt time.Time `json:"installed_at"`
		Files       []entry   `json:"files"`
	}{Repository: Repository, Commit: Commit, BaseURL: in.BaseURL, InstalledAt: time.Now().UTC().Truncate(time.Second)}
	for _, f := range files() {
		m.Files = append(m.Files, entry(f))
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// replace moves the directory src to dst. When dst exists it is first moved
// to aside (inside the staging directory, removed with it), and moved back
// if src cannot take its place.
func replace(src, dst, aside string) error {
	err := os.Rename(src, dst)
	if err == nil {
		return nil
	}
	if _, statErr := os.Lstat(dst); statErr != nil {
		return err // no previous copy in the way: a real failure
	}
	if err := os.Rename(dst, aside); err != nil {
		return err
	}
	if err := os.Rename(src, dst); err != nil {
		_ = os.Rename(aside, dst)
		return err
	}
	return nil
}

// removeStale removes staging directories left by installations that died
// more than a day ago.
func removeStale(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), stagingPrefix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// syncDir makes the renames in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
