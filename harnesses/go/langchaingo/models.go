package main

import (
	"context"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/mistral"
	"github.com/tmc/langchaingo/llms/openai"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
	"google.golang.org/api/option"
)

// newModel is langchaingo's provider for the case's API, configured with the case's base URL the
// way each provider's options take it; the second result releases what the provider holds.
func newModel(ctx context.Context, c *harnesskit.Case) (llms.Model, func(), error) {
	keep := func() {}
	switch c.API {
	case "openai-chat":
		model, err := openai.New(openai.WithBaseURL(c.BaseURL), openai.WithToken(c.APIKey), openai.WithModel(c.Model))
		return model, keep, err
	case "anthropic-messages":
		// The provider's default base URL ends in /v1, and it appends /messages.
		options := []anthropic.Option{
			anthropic.WithBaseURL(strings.TrimSuffix(c.BaseURL, "/") + "/v1"),
			anthropic.WithToken(c.APIKey), anthropic.WithModel(c.Model),
		}
		if beta := header(c, "anthropic-beta"); beta != "" {
			options = append(options, anthropic.WithAnthropicBetaHeader(beta))
		}
		model, err := anthropic.New(options...)
		return model, keep, err
	case "gemini":
		// The Google AI provider speaks gRPC by default; WithRest and the client's endpoint point it
		// at an HTTP server, as generative-ai-go's client options do.
		endpoint := func(o *googleai.Options) {
			o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(c.BaseURL))
		}
		model, err := googleai.New(ctx, googleai.WithAPIKey(c.APIKey), googleai.WithRest(), endpoint, googleai.WithDefaultModel(c.Model))
		if err != nil {
			return nil, keep, err
		}
		return model, func() { _ = model.Close() }, nil
	case "mistral-chat":
		model, err := mistral.New(mistral.WithEndpoint(c.BaseURL), mistral.WithAPIKey(c.APIKey), mistral.WithModel(c.Model), mistral.WithMaxRetries(0))
		return model, keep, err
	}
	return nil, keep, unsupported(c.API)
}

func header(c *harnesskit.Case, name string) string {
	for key, value := range c.Settings.Headers {
		if strings.EqualFold(key, name) {
			return value
		}
	}
	return ""
}
