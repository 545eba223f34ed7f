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

// EmbeddingUsage is the usage an embeddings reply reports.
type EmbeddingUsage struct {
	// PromptTokens is the reply's usage.prompt_tokens (0 when absent).
	PromptTokens int64
	// Reported is false when the reply has no usage.prompt_tokens.
	Reported bool
}

// Embed sends texts in one request (POST {base}/embeddings) and returns
// one vector per text, in the reply's order, as OpenAI's Python client
// does. A base64 vector's float32 values are widened exactly. A reply with
// another number of vectors, vectors of differing lengths or a value that
// is not finite is an error; nothing the server sends makes it panic.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float64, error) {
	vs, _, err := e.EmbedUsage(ctx, texts)
	return vs, err
}

// EmbedUsage is Embed that also returns the usage the reply reports.
func (e *Embedder) EmbedUsage(ctx context.Context, texts []string) ([][]float64, EmbeddingUsage, error) {
	if len(texts) == 0 {
		return nil, EmbeddingUsage{}, errors.New("openai: no text to embed")
	}
	params := oai.EmbeddingNewParams{
		Input:          oai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		Model:          oai.EmbeddingModel(e.model),
		EncodingFormat: oai.EmbeddingNewParamsEncodingFormat(e.encoding),
	}
	var raw *http.Response
	if _, err := e.svc.New(ctx, params, option.WithResponseBodyInto(&raw)); err != nil {
		return nil, EmbeddingUsage{}, fmt.Errorf("openai: %w", err)
	}
	if raw == nil || raw.Body == nil {
		return nil, EmbeddingUsage{}, errors.New("openai: no response")
	}
	defer raw.Body.Close()
	body, err := io.ReadAll(io.LimitReader(raw.Body, MaxEmbeddingResponseBytes+1))
	if err != nil {
		return nil, EmbeddingUsage{}, fmt.Errorf("openai: reading response: %w", err)
	}
	if len(body) > MaxEmbeddingResponseBytes {
		return nil, EmbeddingUsage{}, fmt.Errorf("openai: embeddings reply larger than %d bytes", MaxEmbeddingResponseBytes)
	}
	vectors, usage, err := decodeEmbeddings(body, len(texts))
	if err != nil {
		return nil, EmbeddingUsage{}, fmt.Errorf("openai: malformed embeddings reply: %w", err)
	}
	return vectors, usage, nil
}

// decodeEmbeddings reads an embeddings reply's data[].embedding, each a
// JSON array of numbers or a base64 string of little-endian float32s, and
// its usage.prompt_tokens.
func decodeEmbeddings(body []byte, want int) ([][]float64, EmbeddingUsage, error) {
	var reply struct {
		Data  []embeddingData `json:"data"`
		Usage *struct {
			PromptTokens *int64 `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		return nil, EmbeddingUsage{}, err
	}
	if len(reply.Data) != want {
		return nil, EmbeddingUsage{}, fmt.Errorf("%d vectors for %d texts", len(reply.Data), want)
	}
	var usage EmbeddingUsage
	if reply.Usage != nil && reply.Usage.PromptTokens != nil && *reply.Usage.PromptTokens >= 0 {
		usage = EmbeddingUsage{PromptTokens: *reply.Usage.PromptTokens, Reported: true}
	}
	vectors, err := decodeData(reply.Data)
	if err != nil {
		return nil, EmbeddingUsage{}, err
	}
	return vectors, usage, nil
}

// embeddingData is one of an embeddings reply's data[].
type embeddingData struct {
	Embedding json.RawMessage `json:"embedding"`
}

// decodeData decodes an embeddings reply's vectors.
func decodeData(data []embeddingData) ([][]float64, error) {
	out := make([][]float64, len(data))
	for i, d := range data {
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
