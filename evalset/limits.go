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
	// MaxValues bounds the values of one eval set, metrics or case file,
	// and of the YAML cases of one [DecodeYAMLCases] together: JSON
	// objects, arrays, keys and scalars; YAML nodes, aliases expanded.
	// It is checked by a linear scan before anything is decoded, so that
	// decoding a file takes time and memory in proportion to it (the
	// worst file within the bounds allocates about 60 MiB in all, and
	// takes under half a second), whatever the file's size.
	MaxValues = 100_000
	// MaxMappingKeys bounds the keys of one YAML mapping: the YAML decoder
	// checks a mapping's keys for duplicates pair by pair, in time that
	// grows with the square of their number.
	MaxMappingKeys = 1_000
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

// checkJSONShape refuses JSON whose arrays and objects nest deeper than
// MaxDepth, or that holds more than MaxValues values, without decoding it.
// The values are counted as the commas, colons and opening brackets
// outside strings, plus one: every value and key but the first follows
// one of them.
func checkJSONShape(data []byte) error {
	depth, values, inString, escaped := 0, 1, false, false
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
			values++
			if depth > MaxDepth {
				return fmt.Errorf("JSON nests deeper than %d levels (at byte %d): flatten the data", MaxDepth, i)
			}
		case c == '}' || c == ']':
			depth--
		case c == ',' || c == ':':
			values++
		}
		if values > MaxValues {
			return fmt.Errorf("JSON holds more than %d values (by byte %d): split the set into several sets", MaxValues, i)
		}
	}
	return nil
}
