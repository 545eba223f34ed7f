package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// EmbeddingDims is the length of the vectors Embedding makes.
const EmbeddingDims = 64

// Embedding is the fake embeddings endpoint's default vector of a text: a
// hashed bag of words. Each lowercased word (a run of letters and digits)
// adds ±(1 + k/256), k from its SHA-256, to one of EmbeddingDims
// dimensions it hashes to. Texts sharing words point the same way; equal
// texts, and texts of the same words, have equal vectors; a text without
// words has the zero vector. Every value is exact in float32, so both
// encodings carry it unchanged.
func Embedding(text string) []float64 {
	v := make([]float64, EmbeddingDims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		h := sha256.Sum256([]byte(w))
		x := 1 + float64(h[1])/256
		if h[2]&1 == 1 {
			x = -x
		}
		v[int(h[0])%EmbeddingDims] += x
	}
	return v
}

type embeddingsRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
}

// serveEmbeddings answers POST /v1/embeddings as OpenAI does: a list of
// embedding objects, each vector a JSON array of numbers or, for
// "encoding_format": "base64", little-endian float32s in base64. The
// script sees Request.Input; a reply without Embeddings gets Embedding of
// each input.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		s.badRequest(w, "reading body: %v", err)
		return
	}
	var in embeddingsRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		s.badRequest(w, "request is not JSON: %v", err)
		return
	}
	var input []string
	if err := json.Unmarshal(in.Input, &input); err != nil {
		var one string
		if json.Unmarshal(in.Input, &one) != nil {
			s.badRequest(w, "input is neither a string nor an array of strings: %s", in.Input)
			return
		}
		input = []string{one}
	}
	if in.EncodingFormat != "" && in.EncodingFormat != "float" && in.EncodingFormat != "base64" {
		s.badRequest(w, "encoding_format %q", in.EncodingFormat)
		return
	}
	reply := s.record(r.Context(), Request{
		Provider: "openai", Model: in.Model, Input: input, EncodingFormat: in.EncodingFormat,
		Header: r.Header.Clone(), Raw: raw,
	})
	switch {
	case reply.isError():
		s.writeOpenAIError(w, reply)
		return
	case reply.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.status())
		_, _ = io.WriteString(w, reply.Raw)
		return
	}
	vectors := reply.Embeddings
	if vectors == nil {
		for _, text := range input {
			vectors = append(vectors, Embedding(text))
		}
	}
	data := make([]any, len(vectors))
	for i, v := range vectors {
		var e any = v
		if in.EncodingFormat == "base64" {
			e = float32Base64(v)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": e}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.status())
	_ = json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": in.Model,
		"usage": map[string]any{"prompt_tokens": reply.InputTokens, "total_tokens": reply.InputTokens},
	})
}

func float32Base64(v []float64) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// writeOpenAIError writes an error reply in OpenAI's shape.
func (s *Server) writeOpenAIError(w http.ResponseWriter, reply Reply) {
	reply.setRetryAfter(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.Status)
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": reply.ErrorMessage, "type": openaiErrorType(reply.Status), "param": nil, "code": nil,
	}})
	_, _ = w.Write(body)
}
