package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"google.golang.org/adk/model"
	"google.golang.org/genai"
)

// providerModel gives every provider's model.LLM the same contract: failures
// after the request was sent are *ProviderError (status, message, attempts,
// never the key), a stream ends with one non-partial response carrying
// TurnComplete and the usage, and a stream that breaks off is an error, not
// a short answer.
type providerModel struct {
	provider string
	inner    model.LLM
	key      redactor
	// needFinish: the provider's final stream chunk always carries a
	// finish reason, so a stream without one was cut short. (OpenAI's
	// adapter checks its own terminator, "data: [DONE]".)
	needFinish bool
}

// Name returns the model name.
func (m *providerModel) Name() string { return m.inner.Name() }

// GenerateContent calls the provider; see providerModel.
func (m *providerModel) GenerateContent(ctx context.Context, req *model.LLMRequest, stream bool) iter.Seq2[*model.LLMResponse, error] {
	return func(consumer func(*model.LLMResponse, error) bool) {
		ctx, st := withCallState(ctx)
		// The SDKs decode untrusted replies, and genai panics on some
		// (e.g. {"candidates":{}}): a panic out of the provider's code is a
		// malformed reply. One out of the consumer's loop body, which
		// unwinds through yield, is not ours to stop.
		inConsumer := false
		yield := func(resp *model.LLMResponse, err error) bool {
			inConsumer = true
			ok := consumer(resp, err)
			inConsumer = false
			return ok
		}
		defer func() {
			if inConsumer {
				return
			}
			if r := recover(); r != nil {
				yield(nil, m.fail(ctx, st, fmt.Errorf("malformed reply: decoding it panicked: %v", r)))
			}
		}()
		modelVersion := ""
		finished, final := false, false
		for resp, err := range m.inner.GenerateContent(ctx, req, stream) {
			if err == nil && resp == nil {
				err = errors.New("no response")
			}
			if err != nil {
				yield(nil, m.fail(ctx, st, err))
				return
			}
			if resp.ModelVersion != "" {
				modelVersion = resp.ModelVersion
			}
			if resp.FinishReason != "" {
				finished = true
			}
			if stream && resp.Partial {
				// Usage belongs to the complete response only, so that
				// summing every response's usage counts a call once
				// (Gemini's chunks carry running totals).
				resp.UsageMetadata = nil
				if !yield(resp, nil) {
					return
				}
				continue
			}
			if stream {
				if _, _, _, bodyErr := st.snapshot(); bodyErr != nil {
					yield(nil, m.fail(ctx, st, fmt.Errorf("reading stream: %w", bodyErr)))
					return
				}
				if m.needFinish && !finished {
					yield(nil, m.fail(ctx, st, errors.New("stream ended before the model finished")))
					return
				}
				resp.TurnComplete = true
				if resp.ModelVersion == "" {
					resp.ModelVersion = modelVersion
				}
			}
			final = true
			if !yield(resp, nil) {
				return
			}
		}
		if !final {
			_, _, _, bodyErr := st.snapshot()
			if bodyErr == nil {
				bodyErr = errors.New("stream ended without a response")
			}
			yield(nil, m.fail(ctx, st, bodyErr))
		}
	}
}

// fail turns an inner error into what GenerateContent reports: the
// context's error if the call was cancelled, the error itself (key
// removed) if no request was sent, else a *ProviderError.
func (m *providerModel) fail(ctx context.Context, st *callState, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("llm: %s: %w", m.provider, cerr)
	}
	attempts, status, errBody, _ := st.snapshot()
	if attempts == 0 {
		return &redactedError{msg: m.key.redact(fmt.Sprintf("llm: %s: %v", m.provider, err)), err: err}
	}
	pe := &ProviderError{Provider: m.provider, Status: status, Attempts: attempts}
	switch {
	case status != 0 && (status < 200 || status > 299):
		pe.Message = errorMessage(status, errBody)
	case status != 0:
		// An error object sent with a 2xx status says more than the
		// SDK's complaint about it.
		if msg := errorObjectMessage(st.replyHead()); msg != "" {
			pe.Message = msg
			break
		}
		fallthrough
	default:
		// The SDK's description; its first line, as some append the
		// whole body.
		msg, _, _ := strings.Cut(err.Error(), "\n")
		pe.Message = strings.TrimPrefix(msg, m.provider+": ")
	}
	pe.Message = m.key.message(pe.Message)
	return pe
}

// geminiModel is the Gemini provider. It keeps ADK's view of it as a
// Gemini API model, which decides Gemini-specific request processing.
type geminiModel struct{ providerModel }

// GetGoogleLLMVariant reports the Gemini API backend, as ADK's own Gemini
// model does.
func (m *geminiModel) GetGoogleLLMVariant() genai.Backend { return genai.BackendGeminiAPI }
