package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"strings"
)

// Price is what a model charges per million tokens, in US dollars.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok" validate:"gte=0"`
	OutputPerMTok float64 `json:"output_per_mtok" validate:"gte=0"`
}

// Prices maps model names to their prices. A key is either a bare model name
// ("gpt-4.1") or a spec ("openai:gpt-4.1"); the spec wins when both exist.
type Prices map[string]Price

// maxPriceTableBytes bounds a price table read from a file.
const maxPriceTableBytes = 1 << 20

// DefaultPrices returns proctor's built-in price table: list prices of some
// common models when this release was made. Prices change; extend or
// override them with ReadPrices and With.
func DefaultPrices() Prices {
	return Prices{
		"gpt-4.1":          {InputPerMTok: 2.00, OutputPerMTok: 8.00},
		"gpt-4.1-mini":     {InputPerMTok: 0.40, OutputPerMTok: 1.60},
		"gpt-4.1-nano":     {InputPerMTok: 0.10, OutputPerMTok: 0.40},
		"gpt-4o":           {InputPerMTok: 2.50, OutputPerMTok: 10.00},
		"gpt-4o-mini":      {InputPerMTok: 0.15, OutputPerMTok: 0.60},
		"o4-mini":          {InputPerMTok: 1.10, OutputPerMTok: 4.40},
		"gemini-2.5-pro":   {InputPerMTok: 1.25, OutputPerMTok: 10.00},
		"gemini-2.5-flash": {InputPerMTok: 0.30, OutputPerMTok: 2.50},
		"gemini-2.0-flash": {InputPerMTok: 0.10, OutputPerMTok: 0.40},
		// Embeddings models charge for input only.
		"text-embedding-3-small": {InputPerMTok: 0.02},
		"text-embedding-3-large": {InputPerMTok: 0.13},
		"text-embedding-ada-002": {InputPerMTok: 0.10},
	}
}

// ReadPrices reads a price table: a JSON object mapping model names or specs
// to {"input_per_mtok": N, "output_per_mtok": N}. Unknown fields, negative
// or non-finite prices and tables over 1 MiB are errors.
func ReadPrices(r io.Reader) (Prices, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxPriceTableBytes+1))
	if err != nil {
		return nil, fmt.Errorf("price table: %w", err)
	}
	if len(b) > maxPriceTableBytes {
		return nil, fmt.Errorf("price table: larger than %d bytes", maxPriceTableBytes)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var p Prices
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("price table: want {\"model\": {\"input_per_mtok\": N, \"output_per_mtok\": N}}: %w", err)
	}
	for name, pr := range p {
		if strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("price table: an entry has an empty model name")
		}
		for _, v := range []float64{pr.InputPerMTok, pr.OutputPerMTok} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("price table: %s: prices must be finite and not negative", name)
			}
		}
	}
	return p, nil
}

// With returns a table holding p's entries overridden by other's.
func (p Prices) With(other Prices) Prices {
	out := maps.Clone(p)
	if out == nil {
		out = Prices{}
	}
	maps.Copy(out, other)
	return out
}

// Cost returns what a call costs, and false when the model has no price.
// model is a spec ("openai:gpt-4.1") or a bare name.
func (p Prices) Cost(model string, inputTokens, outputTokens int64) (float64, bool) {
	pr, ok := p[model]
	if !ok {
		if _, name, found := strings.Cut(model, ":"); found {
			pr, ok = p[name]
		}
	}
	if !ok {
		return 0, false
	}
	return (float64(inputTokens)*pr.InputPerMTok + float64(outputTokens)*pr.OutputPerMTok) / 1e6, true
}
