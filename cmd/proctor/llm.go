package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proctor-eval/proctor/llm"
	"github.com/proctor-eval/proctor/scoring"
)

// Environment variables of proctor's own model settings (provider keys use
// the providers' usual variables: OPENAI_API_KEY, GEMINI_API_KEY...).
const (
	envLLMBaseURL    = "PROCTOR_LLM_BASE_URL"
	envLLMPriceTable = "PROCTOR_LLM_PRICES"
)

// llmFlags are the flags of the commands that use language models.
type llmFlags struct {
	userModel, judgeModel string
	userPrompt            string
	// panel makes --judge-model repeatable (judgeModels): a judge panel.
	panel               bool
	judgeModels         []string
	judgeSamples        int
	temperature         float64
	seed                int64
	cassette, mode      string
	baseURL, priceTable string
	retries             int
	// maxConcurrency caps concurrent model calls per provider (see
	// llm.ParseLimits).
	maxConcurrency string
}

// addLLMFlags registers the model flags; evaluation adds those of the user
// simulator, the judge and cassettes.
func addLLMFlags(cmd *cobra.Command, f *llmFlags, evaluation bool) {
	fl := cmd.Flags()
	if evaluation {
		fl.StringVar(&f.userPrompt, "user-prompt", "tau2", "prompt of the LLM user simulator: tau2 (tau2-bench's own user simulator, so scores compare with tau2's) or proctor (proctor's own prompt)")
		fl.StringVar(&f.userModel, "user-model", "", "model of the LLM user simulator (--user llm), e.g. openai:gpt-4.1 or gemini:gemini-2.5-flash")
		if f.panel {
			fl.StringArrayVar(&f.judgeModels, "judge-model", nil, "model of the NL_ASSERTION judge; given 2 to 8 times, a judge panel: each judge grades every NL assertion and proctor reports how far they agree")
		} else {
			fl.StringVar(&f.judgeModel, "judge-model", "", "model of the NL_ASSERTION judge (default: the user model)")
		}
		fl.IntVar(&f.judgeSamples, "judge-samples", scoring.DefaultJudgeSamples, "judge verdicts per conversation, decided by majority (ties fail)")
		fl.Float64Var(&f.temperature, "temperature", 0, "temperature of the user and judge models")
		fl.Int64Var(&f.seed, "seed", 0, "seed passed to the user and judge models (where the provider supports it)")
		fl.StringVar(&f.cassette, "llm-cassette", "", "record model calls to, or replay them from, this file (see --llm-mode)")
		fl.StringVar(&f.mode, "llm-mode", "", "with --llm-cassette: record (call the models and save every reply) or replay (offline, from the file)")
	}
	fl.StringVar(&f.baseURL, "llm-base-url", "", "base URL of the model API (an OpenAI-compatible server: vLLM, Ollama, LiteLLM...; or $"+envLLMBaseURL+", else the provider's usual variable)")
	fl.StringVar(&f.priceTable, "llm-prices", "", "JSON price table extending the built-in one: {\"openai:my-model\": {\"input_per_mtok\": 1, \"output_per_mtok\": 3}} (or $"+envLLMPriceTable+")")
	fl.IntVar(&f.retries, "llm-retries", 4, "retries of a model call on 429/5xx or a dropped connection (Retry-After is honoured)")
	fl.StringVar(&f.maxConcurrency, "llm-max-concurrency", strconv.Itoa(llm.DefaultMaxConcurrency),
		"model calls in flight at once per provider, whatever --concurrency (0: unlimited); per provider: openai=32,gemini=8, or 8,openai=32")
}

// validate checks the model flags.
func (f *llmFlags) validate(cmd *cobra.Command) []string {
	var errs []string
	if len(f.judgeModels) == 1 {
		f.judgeModel = f.judgeModels[0]
	}
	specs := []struct{ flag, spec string }{{"user-model", f.userModel}, {"judge-model", f.judgeModel}}
	for _, spec := range f.judgeModels {
		specs = append(specs, struct{ flag, spec string }{"judge-model", spec})
	}
	for _, m := range specs {
		if m.spec == "" {
			continue
		}
		if _, _, err := llm.ParseSpec(m.spec); err != nil {
			errs = append(errs, fmt.Sprintf("--%s %q: want provider:model, e.g. openai:gpt-4.1", m.flag, m.spec))
		}
	}
	evaluation := cmd.Flags().Lookup("judge-samples") != nil
	if evaluation && (f.judgeSamples < 1 || f.judgeSamples > 25) {
		errs = append(errs, fmt.Sprintf("--judge-samples %d: want 1..25", f.judgeSamples))
	}
	if f.temperature < 0 || f.temperature > 2 {
		errs = append(errs, fmt.Sprintf("--temperature %v: want 0..2", f.temperature))
	}
	if f.retries < 0 || f.retries > 20 {
		errs = append(errs, fmt.Sprintf("--llm-retries %d: want 0..20", f.retries))
	}
	if _, err := llm.ParseLimits(f.maxConcurrency); err != nil {
		errs = append(errs, fmt.Sprintf("--llm-max-concurrency %q: want a number (0: unlimited) or provider=number pairs, e.g. 16 or openai=32,gemini=8", f.maxConcurrency))
	}
	switch {
	case f.cassette == "" && f.mode != "":
		errs = append(errs, "--llm-mode needs --llm-cassette")
	case f.cassette != "" && !slices.Contains([]string{string(llm.ModeRecord), string(llm.ModeReplay)}, f.mode):
		errs = append(errs, fmt.Sprintf("--llm-mode %q: want record or replay", f.mode))
	}
	return errs
}

// temperaturePtr and seedPtr pass the flags on only when they were given.
func (f *llmFlags) temperaturePtr(cmd *cobra.Command) *float64 {
	if !cmd.Flags().Changed("temperature") {
		return nil
	}
	v := f.temperature
	return &v
}

func (f *llmFlags) seedPtr(cmd *cobra.Command) *int64 {
	if !cmd.Flags().Changed("seed") {
		return nil
	}
	v := f.seed
	return &v
}

// source makes the command's model source. The cassette, if any, must be
// saved (Save) when the command ends.
func (f *llmFlags) source() (*llm.Source, error) {
	prices := llm.DefaultPrices()
	path := f.priceTable
	if path == "" {
		path = os.Getenv(envLLMPriceTable)
	}
	if path != "" {
		file, err := os.Open(path)
		if err != nil {
			return nil, usageErr("--llm-prices: %v", err)
		}
		extra, err := llm.ReadPrices(file)
		file.Close()
		if err != nil {
			return nil, usageErr("--llm-prices %s: %v", path, err)
		}
		prices = prices.With(extra)
	}
	limits, err := llm.ParseLimits(f.maxConcurrency)
	if err != nil {
		return nil, usageErr("--llm-max-concurrency: %v", err)
	}
	retries := f.retries
	if retries == 0 {
		retries = -1 // llm.Config: 0 is the default, negative none
	}
	src := &llm.Source{Prices: prices, Limits: limits, Config: llm.Config{
		BaseURL: strings.TrimSpace(cmp.Or(f.baseURL, os.Getenv(envLLMBaseURL))), MaxRetries: retries,
	}}
	if f.cassette != "" {
		c, err := llm.OpenCassette(f.cassette, llm.Mode(f.mode))
		if err != nil {
			return nil, usageErr("--llm-cassette: %v", err)
		}
		src.Cassette = c
	}
	return src, nil
}

// saveCassette writes a recording cassette when the command ends; a failure
// is reported, not fatal: the results are stored already.
func saveCassette(cmd *cobra.Command, src *llm.Source) {
	if src.Cassette == nil {
		return
	}
	if err := src.Cassette.Save(); err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "proctor: %v\n", err)
	}
}
