package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	openai "github.com/sashabaranov/go-openai"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// The Responses APIs: Azure AI Foundry's project endpoint and Open Responses servers take the
// OpenAI client with their base URL.
var responsesAPIs = []string{"openai-responses", "openresponses", "azure-foundry"}

// responsesLoop is the loop of go-openai's Responses example carried on to function calls: each
// response's client-side items are answered (toolOutput) and the answers sent on a
// request chained with PreviousResponseID, as the example chains its follow-up. Where the recorded
// request had `store: false` the provider keeps nothing to chain to, so the whole input goes again,
// the response's output items included. A restored history is the saved input items; each run of a
// session continues the last response.
func responsesLoop(ctx context.Context, client *openai.Client, c *harnesskit.Case) (string, error) {
	tools := responseTools(c)
	history, err := harnesskit.WireHistory[map[string]any](c, "go-openai", responsesAPIs...)
	if err != nil {
		return "", err
	}
	extra := map[string]any{}
	for key, value := range c.Settings.Body {
		switch key {
		case "model", "input", "tools", "stream", "stream_options", "previous_response_id":
		default:
			extra[key] = value
		}
	}
	stored := c.Settings.Body["store"] != false
	input := make([]any, 0, len(history)+1)
	for _, item := range history {
		input = append(input, item)
	}
	previous, answer := "", ""
	for _, prompt := range c.RunPrompts() {
		pending := []any{}
		if prompt != nil {
			pending = append(pending, map[string]any{"role": "user", "content": *prompt})
		}
		for turn := 0; ; turn++ {
			if turn == maxTurns {
				return "", fmt.Errorf("the model still called tools after %d turns", maxTurns)
			}
			input = append(input, pending...)
			request := openai.CreateResponseRequest{Model: c.Model, Tools: tools, ExtraBody: extra}
			if stored && previous != "" {
				request.Input, request.PreviousResponseID = pending, previous
			} else {
				request.Input = input
			}
			response, err := respond(ctx, client, c, request)
			if err != nil {
				return "", err
			}
			previous, answer, pending = response.ID, response.GetOutputText(), nil
			for _, raw := range response.Output {
				if !stored {
					input = append(input, raw)
				}
				answer, err := toolOutput(ctx, c, raw)
				if err != nil {
					return "", err
				}
				if answer != nil {
					pending = append(pending, answer)
				}
			}
			if len(pending) == 0 {
				break
			}
		}
	}
	return answer, nil
}

// responseTools declares the case's function tools with NewResponseFunctionTool and its custom tools,
// and the recording's other tools (provider tools, client-run built-ins) as recorded, each as a
// ResponseTool whose Parameters go inline beside its type (the form go-openai gives built-in tools).
func responseTools(c *harnesskit.Case) []openai.ResponseTool {
	var tools []openai.ResponseTool
	for _, t := range c.Tools {
		if t.Type == "custom" {
			tools = append(tools, openai.ResponseTool{Type: "custom", Parameters: map[string]any{"name": t.Name, "description": t.Description}})
			continue
		}
		parameters := t.Parameters
		if parameters == nil {
			parameters = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, openai.NewResponseFunctionTool(openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: parameters}))
	}
	for _, recorded := range c.RecordedTools {
		kind, _ := recorded["type"].(string)
		if kind == "function" || kind == "custom" || kind == "" {
			continue
		}
		parameters := map[string]any{}
		for key, value := range recorded {
			if key != "type" && key != "function" {
				parameters[key] = value
			}
		}
		tools = append(tools, openai.ResponseTool{Type: openai.ToolType(kind), Parameters: parameters})
	}
	return tools
}

// toolOutput is what the application sends back for one output item (CreateResponseResponse.Output
// holds them as decoded JSON), as OpenAI's tool guides build it: function and custom calls run under
// their name, computer, shell, apply-patch and client tool-search calls under their type with their
// action, operation or arguments, and an MCP approval request answered as the approval tool says.
// go-openai has a type for the function call's output only (ResponseFunctionCallOutput); the others
// go as the API's JSON. Items the provider ran need no answer (nil).
func toolOutput(ctx context.Context, c *harnesskit.Case, raw any) (any, error) {
	fields, _ := raw.(map[string]any)
	kind, _ := fields["type"].(string)
	callID, _ := fields["call_id"].(string)
	name, _ := fields["name"].(string)
	text := func(key string) string { value, _ := fields[key].(string); return value }
	var err error
	call := func(name string, args any) string {
		var output string
		if err == nil {
			output, err = c.CallTool(ctx, name, args, callID)
		}
		return output
	}
	var answer any
	switch kind {
	case "function_call":
		var item openai.ResponseOutputItem
		encoded, _ := json.Marshal(raw)
		if err := json.Unmarshal(encoded, &item); err != nil {
			return nil, err
		}
		answer = openai.ResponseFunctionCallOutput{Type: "function_call_output", CallID: item.CallID, Output: call(item.Name, arguments(item.Arguments))}
	case "custom_tool_call":
		answer = map[string]any{"type": "custom_tool_call_output", "call_id": callID, "output": call(name, map[string]any{"input": text("input")})}
	case "computer_call":
		output := map[string]any{"type": "computer_call_output", "call_id": callID, "output": arguments(call(kind, fields["action"]))}
		if checks, ok := fields["pending_safety_checks"].([]any); ok && len(checks) > 0 {
			output["acknowledged_safety_checks"] = checks
		}
		answer = output
	case "local_shell_call":
		// The output item names the call in `id`, the local shell call's call_id.
		answer = map[string]any{"type": "local_shell_call_output", "id": callID, "output": call(kind, fields["action"])}
	case "shell_call":
		output := map[string]any{"type": "shell_call_output", "call_id": callID, "output": arguments(call(kind, fields["action"]))}
		if action, ok := fields["action"].(map[string]any); ok && action["max_output_length"] != nil {
			output["max_output_length"] = action["max_output_length"]
		}
		answer = output
	case "apply_patch_call":
		answer = map[string]any{"type": "apply_patch_call_output", "call_id": callID, "status": "completed", "output": call(kind, fields["operation"])}
	case "tool_search_call":
		if fields["execution"] != "client" {
			return nil, nil
		}
		answer = map[string]any{"type": "tool_search_output", "call_id": callID, "execution": "client", "tools": arguments(call(kind, fields["arguments"]))}
	case "mcp_approval_request":
		callID = text("id")
		answer = map[string]any{
			"type": "mcp_approval_response", "approval_request_id": fields["id"],
			"approve": strings.TrimSpace(call(name, arguments(text("arguments")))) == "true",
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return answer, nil
}

// respond sends one request; a stream is read to its response.completed event, whose response is
// the whole one.
func respond(ctx context.Context, client *openai.Client, c *harnesskit.Case, request openai.CreateResponseRequest) (openai.CreateResponseResponse, error) {
	if !c.Stream {
		return client.CreateResponse(ctx, request)
	}
	stream, err := client.CreateResponseStream(ctx, request)
	if err != nil {
		return openai.CreateResponseResponse{}, err
	}
	defer stream.Close()
	for {
		event, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return openai.CreateResponseResponse{}, errors.New("the stream ended without a response.completed event")
		}
		if err != nil {
			return openai.CreateResponseResponse{}, err
		}
		if event.Type == openai.ResponseStreamEventCompleted && event.Response != nil {
			return *event.Response, nil
		}
	}
}
