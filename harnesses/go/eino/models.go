package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
		search, err := claudeToolSearch(c)
		if err != nil {
			return nil, err
		}
		baseURL := c.BaseURL
		return claude.NewChatModel(ctx, &claude.Config{BaseURL: &baseURL, APIKey: c.APIKey, Model: c.Model, MaxTokens: maxTokens(c),
			ToolSearchAlgorithm: search})
	case "ollama-chat":
		return ollama.NewChatModel(ctx, &ollama.ChatModelConfig{BaseURL: c.BaseURL, Model: c.Model})
	case "gemini":
		client, err := genai.NewClient(ctx, &genai.ClientConfig{
			APIKey: c.APIKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: c.BaseURL},
		})
		if err != nil {
			return nil, err
		}
		config := &gemini.Config{Client: client, Model: c.Model}
		if err := geminiBuiltIns(c, config); err != nil {
			return nil, err
		}
		return gemini.NewChatModel(ctx, config)
	}
	return nil, harnesskit.Skip{Reason: "eino-ext has no published model for " + c.API}
}

func maxTokens(c *harnesskit.Case) int {
	if value, ok := c.Settings.Body["max_tokens"].(float64); ok && value > 0 {
		return int(value)
	}
	return 1024
}

// claudeToolSearch is the server-side tool search the recorded request declared, as the Claude
// model declares one (Config.ToolSearchAlgorithm, the one server tool its Config has). Any other
// server tool, an MCP server, or a tool the scenario's code calls (allowed_callers) is a skip that
// names what the model and Eino's tools lack.
func claudeToolSearch(c *harnesskit.Case) (claude.ToolSearchAlgorithm, error) {
	if _, ok := c.Settings.Body["mcp_servers"]; ok {
		return "", harnesskit.Skip{Reason: "eino-ext's Claude model (claude.Config, its options) has no mcp_servers: an MCP server cannot be declared"}
	}
	for _, t := range c.Tools {
		if len(t.AllowedCallers) > 0 {
			return "", harnesskit.Skip{Reason: fmt.Sprintf("Eino's schema.ToolInfo has no allowed_callers: "+
				"the tool %s that the scenario's code calls cannot be declared", t.Name)}
		}
	}
	var search claude.ToolSearchAlgorithm
	var lacking []string
	for _, recorded := range c.RecordedTools {
		kind, _ := recorded["type"].(string)
		switch {
		case kind == "" || kind == "custom":
		case strings.HasPrefix(kind, "tool_search_tool_bm25"):
			search = claude.ToolSearchAlgorithmBM25
		case strings.HasPrefix(kind, "tool_search_tool_regex"):
			search = claude.ToolSearchAlgorithmRegex
		default:
			lacking = append(lacking, kind)
		}
	}
	if len(lacking) > 0 {
		sort.Strings(lacking)
		return "", harnesskit.Skip{Reason: fmt.Sprintf("eino-ext's Claude model declares no server tool but tool search "+
			"(claude.Config.ToolSearchAlgorithm): it has no way to declare %s", strings.Join(lacking, ", "))}
	}
	return search, nil
}

// geminiBuiltIns declares the recorded request's Gemini built-in tools on the Gemini model's Config
// (EnableCodeExecution, EnableGoogleSearch); another built-in is a skip naming it.
func geminiBuiltIns(c *harnesskit.Case, config *gemini.Config) error {
	var lacking []string
	for _, recorded := range c.RecordedTools {
		for key := range recorded {
			switch key {
			case "functionDeclarations", "function_declarations":
			case "codeExecution", "code_execution":
				config.EnableCodeExecution = true
			case "googleSearch", "google_search":
				config.EnableGoogleSearch = &genai.GoogleSearch{}
			default:
				lacking = append(lacking, key)
			}
		}
	}
	if len(lacking) > 0 {
		sort.Strings(lacking)
		return harnesskit.Skip{Reason: fmt.Sprintf("eino-ext's Gemini model declares built-in tools only through "+
			"gemini.Config's EnableCodeExecution, EnableGoogleSearch and EnableGoogleSearchRetrieval: it has no way to declare %s",
			strings.Join(lacking, ", "))}
	}
	return nil
}
