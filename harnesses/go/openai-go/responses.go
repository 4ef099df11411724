package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// responsesLoop is the README's tool-calling loop: each function_call (and custom_tool_call) of
// the output is answered by an output item under its call_id, sent after the stored response
// (PreviousResponseID). Where the recording kept nothing on the server (store false), the
// function-calling guide's stateless form is used instead: the output items go back in the input
// as returned, then the outputs. A restored conversation is the saved input items decoded into the
// SDK's ResponseInputItemUnionParam; each run of a session sends its user message after the last
// response (or with the whole conversation when nothing is stored yet, or stateless).
func responsesLoop(ctx context.Context, client *openai.Client, c *harnesskit.Case) (string, error) {
	history, err := harnesskit.WireHistory[responses.ResponseInputItemUnionParam](c, "openai-go", responsesAPIs...)
	if err != nil {
		return "", err
	}
	conversation := &responsesConversation{
		stateless: c.Settings.Body["store"] == false,
		history:   history,
		pending:   append(responses.ResponseInputParam{}, history...),
		params:    responses.ResponseNewParams{Model: c.Model, Tools: responseTools(c)},
		opts:      bodyOptions(c, "input", "previous_response_id"),
	}
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			conversation.add(responses.ResponseInputItemParamOfMessage(*prompt, responses.EasyInputMessageRoleUser))
		}
		if answer, err = conversation.run(ctx, client, c); err != nil {
			return "", err
		}
	}
	return answer, nil
}

// responsesConversation is what an application keeps of a Responses conversation: every item
// (history), and those not yet sent after the last stored response (pending).
type responsesConversation struct {
	stateless bool
	history   responses.ResponseInputParam
	pending   responses.ResponseInputParam
	previous  string
	params    responses.ResponseNewParams
	opts      []option.RequestOption
}

func (r *responsesConversation) add(items ...responses.ResponseInputItemUnionParam) {
	r.history = append(r.history, items...)
	r.pending = append(r.pending, items...)
}

func (r *responsesConversation) run(ctx context.Context, client *openai.Client, c *harnesskit.Case) (string, error) {
	consented := false
	for turn := 0; turn < maxTurns; turn++ {
		params := r.params
		if r.stateless || r.previous == "" {
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: r.history}
		} else {
			params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: r.pending}
			params.PreviousResponseID = openai.String(r.previous)
		}
		response, err := responsesTurn(ctx, client, c, params, r.opts)
		if err != nil {
			return "", err
		}
		var outputs responses.ResponseInputParam
		for _, item := range response.Output {
			output, err := responseToolOutput(ctx, c, item)
			if err != nil {
				return "", err
			}
			if output != nil {
				outputs = append(outputs, *output)
			}
		}
		if len(outputs) == 0 && c.API == "azure-foundry" && !consented && asksConsent(response) {
			consented = true
			continue
		}
		for _, item := range response.Output {
			r.history = append(r.history, param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(item.RawJSON())))
		}
		r.previous, r.pending = response.ID, nil
		if len(outputs) == 0 {
			return response.OutputText(), nil
		}
		r.add(outputs...)
	}
	return "", tooManyTurns()
}

// responsesTurn is one request; a stream's response is the one its response.completed event
// carries.
func responsesTurn(ctx context.Context, client *openai.Client, c *harnesskit.Case, params responses.ResponseNewParams, opts []option.RequestOption) (*responses.Response, error) {
	if !c.Stream {
		return client.Responses.New(ctx, params, opts...)
	}
	stream := client.Responses.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	var completed *responses.Response
	for stream.Next() {
		event := stream.Current()
		if event.Type == "response.completed" || event.Type == "response.incomplete" {
			response := event.Response
			completed = &response
		}
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	if completed == nil {
		return nil, errors.New("the stream ended without a response.completed event")
	}
	return completed, nil
}

// responseTools declares the case's function and custom tools with the SDK's types; the
// recording's other tools (provider tools the server runs) go as recorded.
func responseTools(c *harnesskit.Case) []responses.ToolUnionParam {
	var tools []responses.ToolUnionParam
	for _, t := range c.Tools {
		if t.Type == "custom" {
			tools = append(tools, responses.ToolUnionParam{OfCustom: &responses.CustomToolParam{
				Name: t.Name, Description: openai.String(t.Description),
			}})
			continue
		}
		tools = append(tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: t.Parameters,
		}})
	}
	for _, recorded := range c.RecordedTools {
		if kind, _ := recorded["type"].(string); kind == "function" || kind == "custom" {
			continue
		}
		raw, err := json.Marshal(recorded)
		if err == nil {
			tools = append(tools, param.Override[responses.ToolUnionParam](json.RawMessage(raw)))
		}
	}
	return tools
}

// responseToolOutput is what an application sends back for one client-side output item, as
// OpenAI's tool guides build it: function and custom calls run under their name, computer, shell,
// apply-patch and client tool-search calls under their type with their action, operation or
// arguments, and an MCP approval request is answered as the approval tool says. Server-side
// items need no answer (nil).
func responseToolOutput(ctx context.Context, c *harnesskit.Case, item responses.ResponseOutputItemUnion) (*responses.ResponseInputItemUnionParam, error) {
	var fields map[string]any
	if err := json.Unmarshal([]byte(item.RawJSON()), &fields); err != nil {
		return nil, err
	}
	callID, _ := fields["call_id"].(string)
	var answer map[string]any
	var err error
	call := func(name string, args any) string {
		var output string
		if err == nil {
			output, err = c.CallTool(ctx, name, args, callID)
		}
		return output
	}
	switch kind, _ := fields["type"].(string); kind {
	case "function_call":
		fc := item.AsFunctionCall()
		answer = map[string]any{"type": "function_call_output", "call_id": fc.CallID, "output": call(fc.Name, arguments(fc.Arguments))}
	case "custom_tool_call":
		cc := item.AsCustomToolCall()
		answer = map[string]any{"type": "custom_tool_call_output", "call_id": cc.CallID, "output": call(cc.Name, map[string]any{"input": cc.Input})}
	case "computer_call":
		answer = map[string]any{"type": "computer_call_output", "call_id": callID, "output": arguments(call(kind, fields["action"]))}
		if checks, ok := fields["pending_safety_checks"].([]any); ok && len(checks) > 0 {
			answer["acknowledged_safety_checks"] = checks
		}
	case "local_shell_call":
		// The output item names the call in `id`: "the unique ID of the local shell tool call
		// generated by the model", its call_id.
		answer = map[string]any{"type": "local_shell_call_output", "id": callID, "output": call(kind, fields["action"])}
	case "shell_call":
		answer = map[string]any{"type": "shell_call_output", "call_id": callID, "output": arguments(call(kind, fields["action"]))}
		if action, ok := fields["action"].(map[string]any); ok && action["max_output_length"] != nil {
			answer["max_output_length"] = action["max_output_length"]
		}
	case "apply_patch_call":
		answer = map[string]any{"type": "apply_patch_call_output", "call_id": callID, "status": "completed", "output": call(kind, fields["operation"])}
	case "tool_search_call":
		if fields["execution"] != "client" {
			return nil, nil
		}
		answer = map[string]any{"type": "tool_search_output", "call_id": callID, "execution": "client", "tools": arguments(call(kind, fields["arguments"]))}
	case "mcp_approval_request":
		name, _ := fields["name"].(string)
		args, _ := fields["arguments"].(string)
		answer = map[string]any{"type": "mcp_approval_response", "approval_request_id": fields["id"], "approve": call(name, arguments(args)) == "true"}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(answer)
	if err != nil {
		return nil, err
	}
	param := param.Override[responses.ResponseInputItemUnionParam](json.RawMessage(raw))
	return &param, nil
}

// asksConsent: Foundry's OAuth identity passthrough answers with a consent link; once the user
// has signed in there, the application sends the same request again.
func asksConsent(response *responses.Response) bool {
	for _, item := range response.Output {
		if item.Type == "oauth_consent_request" {
			return true
		}
	}
	return false
}
