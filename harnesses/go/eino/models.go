package main

import (
	"context"

	"github.com/cloudwego/eino-ext/components/model/gemini"
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
	"google.golang.org/genai"
)

const (
	openaiModule = "github.com/cloudwego/eino-ext/components/model/openai"
	geminiModule = "github.com/cloudwego/eino-ext/components/model/gemini"
)

// newModel is the eino-ext chat model for the case's API, configured as its README shows: the
// OpenAI model with a BaseURL, the Gemini model over a genai client with the base URL in its
// HTTPOptions.
func newModel(ctx context.Context, c *harnesskit.Case) (model.ToolCallingChatModel, error) {
	switch c.API {
	case "openai-chat":
		return openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model})
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
