package llm_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"google.golang.org/adk/model"
	"google.golang.org/genai"

	"github.com/proctor-eval/proctor/llm"
)

// The key comes from OPENAI_API_KEY; "gemini:gemini-2.5-flash" would read
// GEMINI_API_KEY instead.
func ExampleNew() {
	ctx := context.Background()
	m, err := llm.New(ctx, "openai:gpt-4.1", llm.Config{})
	if err != nil {
		log.Fatal(err) // e.g. llm: openai:gpt-4.1: no API key: set OPENAI_API_KEY (or Config.APIKey)
	}
	req := &model.LLMRequest{Contents: []*genai.Content{genai.NewContentFromText("Say hello.", genai.RoleUser)}}
	for resp, err := range m.GenerateContent(ctx, req, true) {
		var pe *llm.ProviderError
		switch {
		case errors.As(err, &pe):
			log.Fatalf("HTTP %d after %d attempts: %s", pe.Status, pe.Attempts, pe.Message)
		case err != nil:
			log.Fatal(err)
		case resp.Partial:
			fmt.Print(resp.Content.Parts[0].Text) // text as it arrives
		default:
			fmt.Println("\ntokens:", resp.UsageMetadata.TotalTokenCount)
		}
	}
}
