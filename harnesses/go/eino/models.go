package main

import (
	"context"

	"github.com/cloudwego/eino-ext/components/model/claude"
	"github.com/cloudwego/eino-ext/components/model/gemini"
	"github.com/cloudwego/eino-ext/components/model/ollama"
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
	"google.golang.org/genai"
)

// The eino-ext model modules, each versioned on its own.
var modelModules = []string{
	"github.com/cloudwego/eino-ext/components/model/openai",
	"github.com/cloudwego/eino-ext/components/model/claude",
	"github.com/cloudwego/eino-ext/components/model/gemini",
	"github.com/cloudwego/eino-ext/components/model/ollama",
}

// newModel is the eino-ext chat model for the case's API, configured as its README shows: the
// OpenAI, Claude and Ollama models with a BaseURL, the Gemini model over a genai client with the
// base URL in its HTTPOptions.
func newModel(ctx context.Context, c *harnesskit.Case) (model.ToolCallingChatModel, error) {
	switch c.API {
	case "openai-chat":
		return openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model})
	case "anthropic-messages":
		baseURL := c.BaseURL
		return claude.NewChatModel(ctx, &claude.Config{BaseURL: &baseURL, APIKey: c.APIKey, Model: c.Model, MaxTokens: maxTokens(c)})
	case "ollama-chat":
		return ollama.NewChatModel(ctx, &ollama.ChatModelConfig{BaseURL: c.BaseURL, Model: c.Model})
	case "gemini":
		client, err := genai.NewClient(ctx, &genai.ClientConfig{
			APIKey: c.APIKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: c.BaseURL},
		})
		if err != nil {
			return nil, err
		}
		return gemini.NewChatModel(ctx, &gemini.Config{Client: client, Model: c.Model})
	}
	return nil, harnesskit.Skip{Reason: "eino-ext has no published model for " + c.API}
}

func maxTokens(c *harnesskit.Case) int {
	if value, ok := c.Settings.Body["max_tokens"].(float64); ok && value > 0 {
		return int(value)
	}
	return 1024
}
