package evalset

import (
	"fmt"
	"io"
	"os"
)

// Bounds on the files the loaders read, checked before decoding.
const (
	// MaxFileSize is the largest eval set, metrics or case file read.
	MaxFileSize = 32 << 20
	// MaxDepth is the deepest nesting of JSON or YAML values accepted.
	MaxDepth = 64
)

// readBounded reads a file of at most MaxFileSize bytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is larger than %d MiB: split the set into several files", MaxFileSize>>20)
	}
	return data, nil
}

// checkJSONDepth refuses JSON whose arrays and objects nest deeper than
// MaxDepth, without decoding it.
func checkJSONDepth(data []byte) error {
	depth, inString, escaped := 0, false, false
	for i, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > MaxDepth {
				return fmt.Errorf("JSON nests deeper than %d levels (at byte %d): flatten the data", MaxDepth, i)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}
