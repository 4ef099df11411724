// The go-openai harness (github.com/sashabaranov/go-openai): the library has no tool loop of its own,
// so on Chat Completions this is the loop its completion-with-tool example writes (the assistant
// message appended as returned, then one tool message per call with the call's ID and function name),
// and on the Responses API its responses example's chaining by PreviousResponseID carried on to
// function calls (responses.go), each run until the model answers in text, against the suite's replay
// server (docs/harness.md). The verdicts judge these loops over the library's types, request encoding
// and stream decoding.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	openai "github.com/sashabaranov/go-openai"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const module = "github.com/sashabaranov/go-openai"

// The loop gives up after this many model turns, so a conversation that never ends in text ends in
// the suite's verdict instead of a timeout.
const maxTurns = 12

// The Chat Completions APIs: Moonshot's Kimi guide documents an OpenAI client with its base URL.
var chatAPIs = []string{"openai-chat", "kimi-chat"}

func main() {
	version := harnesskit.ModuleVersion(module)
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "go-openai",
		Version:   version,
		Homepage:  "https://github.com/sashabaranov/go-openai",
		Libraries: map[string]string{module: version},
		APIs:      append(append([]string{}, chatAPIs...), responsesAPIs...),
		Continues: []string{"history", "sessions"},
		Unsupported: map[string]string{
			"anthropic-messages": "go-openai speaks OpenAI's APIs only",
			"gemini":             "go-openai speaks OpenAI's APIs only",
			"mistral-chat":       "Mistral documents its own SDKs, not an OpenAI client, for its chat API",
		},
	}, run)
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	config := openai.DefaultConfig(c.APIKey)
	config.BaseURL = c.BaseURL
	client := openai.NewClientWithConfig(config)
	switch {
	case slices.Contains(chatAPIs, c.API):
		return chat(ctx, client, c)
	case slices.Contains(responsesAPIs, c.API):
		return responsesLoop(ctx, client, c)
	}
	return "", harnesskit.Skip{Reason: "go-openai has no client for " + c.API}
}

func chat(ctx context.Context, client *openai.Client, c *harnesskit.Case) (string, error) {
	tools, err := declare(c)
	if err != nil {
		return "", err
	}
	messages, err := harnesskit.WireHistory[openai.ChatCompletionMessage](c, "go-openai", chatAPIs...)
	if err != nil {
		return "", err
	}
	request, err := recordedRequest(c)
	if err != nil {
		return "", err
	}
	request.Model, request.Tools, request.Messages = c.Model, tools, messages
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			request.Messages = append(request.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: *prompt})
		}
		if answer, err = loop(ctx, client, c, &request); err != nil {
			return "", err
		}
	}
	return answer, nil
}

// declare gives each case tool as an openai.Tool of type function. A custom tool could be declared
// through Tool.Parameters, but its calls could not be read: ToolCall has a Function and no Custom.
func declare(c *harnesskit.Case) ([]openai.Tool, error) {
	var tools []openai.Tool
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return nil, harnesskit.Skip{Reason: "go-openai's ToolCall holds a function call only (Type, ID, Function): the input of a call to the custom (free-form) tool '" + t.Name + "' is dropped when a chat completion is decoded"}
		}
		parameters := t.Parameters
		if parameters == nil {
			parameters = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: parameters,
		}})
	}
	return tools, nil
}

// recordedRequest carries the recorded body's other fields (tool_choice, max_tokens, ...) that
// go-openai's ChatCompletionRequest has a field for; the conversation and the tools are the loop's.
func recordedRequest(c *harnesskit.Case) (openai.ChatCompletionRequest, error) {
	var request openai.ChatCompletionRequest
	body := map[string]any{}
	for key, value := range c.Settings.Body {
		switch key {
		case "model", "messages", "tools", "stream", "stream_options", "functions", "function_call":
		default:
			body[key] = value
		}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return request, err
	}
	if err := json.Unmarshal(raw, &request); err != nil {
		return request, fmt.Errorf("the recorded request's settings do not fit go-openai's ChatCompletionRequest: %w", err)
	}
	return request, nil
}

// loop is one run on request.Messages, which it extends with what it sends.
func loop(ctx context.Context, client *openai.Client, c *harnesskit.Case, request *openai.ChatCompletionRequest) (string, error) {
	for turn := 0; turn < maxTurns; turn++ {
		message, err := complete(ctx, client, c, *request)
		if err != nil {
			return "", err
		}
		request.Messages = append(request.Messages, message)
		if len(message.ToolCalls) == 0 {
			return message.Content, nil
		}
		for _, call := range message.ToolCalls {
			output, err := c.CallTool(ctx, call.Function.Name, arguments(call.Function.Arguments), call.ID)
			if err != nil {
				return "", err
			}
			request.Messages = append(request.Messages, openai.ChatCompletionMessage{
				Role: openai.ChatMessageRoleTool, Content: output, Name: call.Function.Name, ToolCallID: call.ID,
			})
		}
	}
	return "", fmt.Errorf("the model still called tools after %d turns", maxTurns)
}

func complete(ctx context.Context, client *openai.Client, c *harnesskit.Case, request openai.ChatCompletionRequest) (openai.ChatCompletionMessage, error) {
	if !c.Stream {
		response, err := client.CreateChatCompletion(ctx, request)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		if len(response.Choices) == 0 {
			return openai.ChatCompletionMessage{}, errors.New("the completion has no choices")
		}
		return response.Choices[0].Message, nil
	}
	request.Stream = true
	stream, err := client.CreateChatCompletionStream(ctx, request)
	if err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	defer stream.Close()
	return accumulate(stream)
}

// accumulate folds a stream into one assistant message: content appended, and each tool call delta
// merged into the call its Index names (the field go-openai documents as set in chunks only), in the
// order the calls first appear; a delta that carries a different ID at an index already taken starts
// a new call (servers that put every call at index 0). The ID, type and name come from the delta
// that carries them, the arguments are concatenated.
func accumulate(stream *openai.ChatCompletionStream) (openai.ChatCompletionMessage, error) {
	message := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	at := map[int]int{} // a delta's Index -> the position of its call in message.ToolCalls
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return message, nil
		}
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		if len(chunk.Choices) == 0 {
			continue
		}
		delta := chunk.Choices[0].Delta
		message.Content += delta.Content
		for _, part := range delta.ToolCalls {
			index := len(message.ToolCalls)
			if part.Index != nil {
				index = *part.Index
			}
			position, seen := at[index]
			if !seen || (part.ID != "" && message.ToolCalls[position].ID != "" && part.ID != message.ToolCalls[position].ID) {
				message.ToolCalls = append(message.ToolCalls, openai.ToolCall{Type: openai.ToolTypeFunction})
				position = len(message.ToolCalls) - 1
				at[index] = position
			}
			call := &message.ToolCalls[position]
			if part.ID != "" {
				call.ID = part.ID
			}
			if part.Type != "" {
				call.Type = part.Type
			}
			if part.Function.Name != "" {
				call.Function.Name = part.Function.Name
			}
			call.Function.Arguments += part.Function.Arguments
		}
	}
}

func arguments(text string) any {
	var value any
	if json.Unmarshal([]byte(text), &value) == nil {
		return value
	}
	return text
}
