package domains

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Hasher is implemented by database types that fingerprint themselves (for
// example the way tau2-bench does, so that DB rewards compare with its
// runs). Others are hashed with HashJSON.
type Hasher interface {
	Hash() (string, error)
}

// HashJSON fingerprints a value as the SHA-256 of its canonical JSON: object
// keys sorted at every depth, no insignificant white space.
//
// The canonical JSON is what encoding/json writes for the value decoded
// (with UseNumber) into maps, slices and strings and encoded again. HashJSON
// produces those bytes from the value's encoding in one pass (canonicalJSON)
// and falls back on the round trip itself for what that pass does not
// handle, so that a hash never changes with the way it is computed.
func HashJSON(v any) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("hash: encode: %w", err)
	}
	canon, ok := canonicalJSON(raw)
	if !ok {
		if canon, err = roundTripJSON(raw); err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:]), nil
}

// roundTripJSON is the canonical form of raw by definition: decoded into
// generic values and encoded again (maps encode with sorted keys).
func roundTripJSON(raw []byte) ([]byte, error) {
	var generic any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, fmt.Errorf("hash: decode: %w", err)
	}
	canon, err := json.Marshal(generic)
	if err != nil {
		return nil, fmt.Errorf("hash: canonicalize: %w", err)
	}
	return canon, nil
}
