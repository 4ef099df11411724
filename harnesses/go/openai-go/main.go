// The openai-go harness: the official Go SDK's Chat Completions and Responses tool loops, as its
// README and guides write them, against the suite's replay server (docs/harness.md).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const module = "github.com/openai/openai-go/v3"

// The loop gives up after this many model turns, so a library that never stops calling tools
// ends in the suite's verdict instead of a timeout.
const maxTurns = 12

// The APIs of each wire form the SDK speaks: a conversation saved on one of them is restored on
// any other of the same form.
var (
	chatAPIs      = []string{"openai-chat", "kimi-chat"}
	responsesAPIs = []string{"openai-responses", "azure-foundry", "openresponses"}
)

func main() {
	version := harnesskit.ModuleVersion(module)
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "openai-go",
		Version:   version,
		Homepage:  "https://github.com/openai/openai-go",
		Libraries: map[string]string{module: version},
		// Moonshot's Kimi guide, Azure AI Foundry's project endpoint and Open Responses servers
		// document the OpenAI client with their base URL; those cases run the same two loops.
		APIs:      append(append([]string{}, chatAPIs...), responsesAPIs...),
		Continues: []string{"history", "sessions"},
		Unsupported: map[string]string{
			"anthropic-messages": "openai-go speaks OpenAI's APIs only",
			"gemini":             "openai-go speaks OpenAI's APIs only",
			"mistral-chat":       "Mistral documents its own SDKs, not the OpenAI client, for its chat API",
		},
	}, run)
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	client := openai.NewClient(clientOptions(c)...)
	switch {
	case slices.Contains(chatAPIs, c.API):
		return chatLoop(ctx, &client, c)
	case slices.Contains(responsesAPIs, c.API):
		return responsesLoop(ctx, &client, c)
	}
	return "", harnesskit.Skip{Reason: "openai-go has no client for " + c.API}
}

// clientOptions points the client at the case and carries the recorded request's settings the
// SDK lets a caller set: headers, query parameters and body fields (option.WithJSONSet).
func clientOptions(c *harnesskit.Case) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(c.BaseURL),
		option.WithAPIKey(c.APIKey),
		option.WithMaxRetries(0),
	}
	if os.Getenv("OPENAI_GO_HARNESS_TRACE") == "1" {
		opts = append(opts, option.WithDebugLog(nil))
	}
	for key, value := range c.Settings.Headers {
		opts = append(opts, option.WithHeader(key, value))
	}
	for key, value := range c.Settings.Query {
		opts = append(opts, option.WithQuery(key, value))
	}
	return opts
}

// bodyOptions are the recorded body fields beside the conversation, set on every request.
func bodyOptions(c *harnesskit.Case, managed ...string) []option.RequestOption {
	skip := map[string]bool{"model": true, "stream": true, "stream_options": true, "tools": true}
	for _, key := range managed {
		skip[key] = true
	}
	var opts []option.RequestOption
	for key, value := range c.Settings.Body {
		if !skip[key] {
			opts = append(opts, option.WithJSONSet(key, value))
		}
	}
	return opts
}

func arguments(text string) any {
	var value any
	if json.Unmarshal([]byte(text), &value) == nil {
		return value
	}
	return text
}

func tooManyTurns() error {
	return fmt.Errorf("the model still called tools after %d turns", maxTurns)
}
