package shard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"
)

// Location is where shard files are written and read: a directory, or a
// prefix in a bucket of object storage.
type Location struct {
	bucket *blob.Bucket
	// key names one shard file when the location is a file, not a
	// directory (reading only).
	key string
	// name is the location as given, for messages.
	name string
}

// Open opens a location: a local directory (a bare path, or a file://
// URL), or a bucket URL of a gocloud.dev/blob driver the program has
// registered (s3://bucket/prefix?region=..., gs://bucket/prefix,
// azblob://container/prefix, mem://), its path a prefix within the bucket.
// create makes a missing directory (for writing). For reading, a path or
// URL that ends in .json names one shard file.
func Open(ctx context.Context, spec string, create bool) (*Location, error) {
	if spec == "" {
		return nil, errors.New("no shard location given: want a directory or a bucket URL such as s3://bucket/prefix")
	}
	u, err := url.Parse(spec)
	if err != nil || !strings.Contains(spec, "://") {
		return openDir(spec, spec, create)
	}
	if u.Scheme == "file" {
		return openDir(u.Path, spec, create)
	}
	prefix := strings.Trim(u.Path, "/")
	key := ""
	if strings.HasSuffix(prefix, ".json") && !create {
		if i := strings.LastIndex(prefix, "/"); i >= 0 {
			prefix, key = prefix[:i], prefix[i+1:]
		} else {
			prefix, key = "", prefix
		}
	}
	bucketURL := *u
	bucketURL.Path = ""
	b, err := blob.OpenBucket(ctx, bucketURL.String())
	if err != nil {
		return nil, fmt.Errorf("shard location %s: %w", spec, err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return &Location{bucket: b, key: key, name: strings.TrimSuffix(spec, "/")}, nil
}

// openDir opens a local directory, or the directory of a .json file.
func openDir(path, spec string, create bool) (*Location, error) {
	key := ""
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && !create {
		path, key = filepath.Dir(path), filepath.Base(path)
	} else if create {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("shard location %s: %w", spec, err)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("shard location %s: %w", spec, err)
	}
	// Temporary files go next to the shard files, so that the rename that
	// publishes one stays within one file system (a volume mounted in a
	// pod is not the one os.TempDir is on); a writer killed midway leaves
	// a *.tmp file, which Read ignores.
	b, err := fileblob.OpenBucket(abs, &fileblob.Options{Metadata: fileblob.MetadataDontWrite, NoTempDir: true})
	if err != nil {
		return nil, fmt.Errorf("shard location %s: %w", spec, err)
	}
	return &Location{bucket: b, key: key, name: strings.TrimSuffix(spec, "/")}, nil
}

// Close releases the location's bucket.
func (l *Location) Close() error { return l.bucket.Close() }

// String is the location as it was given.
func (l *Location) String() string { return l.name }

// Write stores f under its Name. The write is atomic: until it succeeds no
// shard file is visible (a directory gets a temporary file renamed into
// place, object storage an upload committed on close); on an error it is
// abandoned. It returns where the file went.
func (l *Location) Write(ctx context.Context, f *File) (string, error) {
	key := Name(f.ShardIndex, f.NumShards)
	where := l.name + "/" + key
	wctx, abandon := context.WithCancel(ctx)
	defer abandon()
	w, err := l.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/json"})
	if err != nil {
		return "", fmt.Errorf("write shard file %s: %w", where, err)
	}
	if err := f.Encode(w); err != nil {
		abandon() // before Close: the write is dropped, not committed
		_ = w.Close()
		return "", fmt.Errorf("write shard file %s: %w", where, err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("write shard file %s: %w", where, err)
	}
	return where, nil
}

// Read decodes the shard files of the location (those named like Name
// gives), or the one file it names, each at most maxBytes (0:
// DefaultMaxBytes).
func (l *Location) Read(ctx context.Context, maxBytes int64) ([]*File, error) {
	keys := []string{l.key}
	if l.key == "" {
		var err error
		if keys, err = l.shardKeys(ctx); err != nil {
			return nil, err
		}
	}
	files := make([]*File, 0, len(keys))
	for _, key := range keys {
		f, err := l.readOne(ctx, key, maxBytes)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// shardKeys lists the shard files of the location.
func (l *Location) shardKeys(ctx context.Context) ([]string, error) {
	var keys []string
	it := l.bucket.List(&blob.ListOptions{Prefix: "shard-", Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("list shard files in %s: %w", l.name, err)
		}
		if !obj.IsDir && strings.HasSuffix(obj.Key, ".json") {
			keys = append(keys, obj.Key)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("no shard files (shard-NNNNN-of-NNNNN.json) in %s", l.name)
	}
	return keys, nil
}

func (l *Location) readOne(ctx context.Context, key string, maxBytes int64) (*File, error) {
	where := l.name
	if l.key == "" {
		where += "/" + key
	}
	r, err := l.bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("shard file %s does not exist", where)
	}
	if err != nil {
		return nil, fmt.Errorf("read shard file %s: %w", where, err)
	}
	defer r.Close()
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if r.Size() > maxBytes {
		return nil, fmt.Errorf("shard file %s is %d bytes, more than the limit of %d", where, r.Size(), maxBytes)
	}
	return Decode(r, maxBytes, where)
}
