package openai

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Embedding encodings an OpenAI-compatible embeddings endpoint offers.
const (
	// EncodingBase64 asks for little-endian float32 vectors in base64: what
	// OpenAI's Python client asks for when its caller names no format.
	EncodingBase64 = "base64"
	// EncodingFloat asks for JSON numbers.
	EncodingFloat = "float"
)

// MaxEmbeddingResponseBytes bounds an embeddings reply: a few thousand
// vectors of a few thousand dimensions, as JSON numbers.
const MaxEmbeddingResponseBytes = 256 << 20

// Embedder calls the embeddings endpoint of an OpenAI-compatible API.
type Embedder struct {
	model    string
	encoding string
	svc      oai.EmbeddingService
}

// NewEmbedder returns an Embedder of modelName asking for vectors in
// encoding (EncodingBase64 or EncodingFloat). Options configure the
// endpoint as for New.
func NewEmbedder(modelName, encoding string, opts ...option.RequestOption) (*Embedder, error) {
	if encoding != EncodingBase64 && encoding != EncodingFloat {
		return nil, fmt.Errorf("openai: embedding encoding %q: want %q or %q", encoding, EncodingBase64, EncodingFloat)
	}
	all := append([]option.RequestOption{option.WithBaseURL(DefaultBaseURL)}, opts...)
	return &Embedder{model: modelName, encoding: encoding, svc: oai.NewEmbeddingService(all...)}, nil
}

// Name returns the model name given to NewEmbedder.
func (e *Embedder) Name() string { return e.model }

// Encoding returns the encoding the embedder asks for.
func (e *Embedder) Encoding() string { return e.encoding }

// Embed sends texts in one request (POST {base}/embeddings) and returns
// one vector per text, in the reply's order, as OpenAI's Python client
// does. A base64 vector's float32 values are widened exactly. A reply with
// another number of vectors, vectors of differing lengths or a value that
// is not finite is an error; nothing the server sends makes it panic.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	if len(texts) == 0 {
		return nil, errors.New("openai: no text to embed")
	}
	params := oai.EmbeddingNewParams{
		Input:          oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		Model:          oai.EmbeddingModel(e.model),
		EncodingFormat: oai.EmbeddingNewParamsEncodingFormat(e.encoding),
	}
	var raw *http.Response
	if _, err := e.svc.New(ctx, params, option.WithResponseBodyInto(&raw)); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if raw == nil || raw.Body == nil {
		return nil, errors.New("openai: no response")
	}
	defer raw.Body.Close()
	body, err := io.ReadAll(io.LimitReader(raw.Body, MaxEmbeddingResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("openai: reading response: %w", err)
	}
	if len(body) > MaxEmbeddingResponseBytes {
		return nil, fmt.Errorf("openai: embeddings reply larger than %d bytes", MaxEmbeddingResponseBytes)
	}
	vectors, err := decodeEmbeddings(body, len(texts))
	if err != nil {
		return nil, fmt.Errorf("openai: malformed embeddings reply: %w", err)
	}
	return vectors, nil
}

// decodeEmbeddings reads an embeddings reply's data[].embedding, each a
// JSON array of numbers or a base64 string of little-endian float32s.
func decodeEmbeddings(body []byte, want int) ([][]float64, error) {
	var reply struct {
		Data []struct {
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		return nil, err
	}
	if len(reply.Data) != want {
		return nil, fmt.Errorf("%d vectors for %d texts", len(reply.Data), want)
	}
	out := make([][]float64, len(reply.Data))
	for i, d := range reply.Data {
		v, err := decodeVector(d.Embedding)
		if err != nil {
			return nil, fmt.Errorf("data[%d]: %w", i, err)
		}
		switch {
		case len(v) == 0:
			return nil, fmt.Errorf("data[%d]: an empty embedding", i)
		case i > 0 && len(v) != len(out[0]):
			return nil, fmt.Errorf("data[%d]: %d dimensions, data[0] has %d", i, len(v), len(out[0]))
		}
		out[i] = v
	}
	return out, nil
}

func decodeVector(raw json.RawMessage) ([]float64, error) {
	var v []float64
	var b64 string
	switch {
	case json.Unmarshal(raw, &b64) == nil:
		b, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, fmt.Errorf("embedding is not base64: %w", err)
		}
		if len(b)%4 != 0 {
			return nil, fmt.Errorf("base64 embedding of %d bytes is not float32s", len(b))
		}
		v = make([]float64, len(b)/4)
		for i := range v {
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
	case json.Unmarshal(raw, &v) == nil:
	default:
		return nil, errors.New("embedding is neither an array of numbers nor a base64 string")
	}
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("embedding holds a value that is not finite")
		}
	}
	return v, nil
}
