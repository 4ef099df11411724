package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/llms"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// The agent executor takes string inputs only (agents/executor.go, inputsToString) and its
// functions agent begins each run with a new human input, with no place for memory: a saved
// conversation cannot be handed to it. langchaingo's way to continue one is its message history,
// []llms.MessageContent, sent with the model's GenerateContent and the tools as llms.Tools, the
// loop of its function-calling examples: the AI message with the tool calls appended, then one
// tool message per call with its llms.ToolCallResponse.

// continued plays a restored history and a session's runs on one []llms.MessageContent.
func continued(ctx context.Context, model llms.Model, c *harnesskit.Case) (string, error) {
	messages, err := restoredMessages(c)
	if err != nil {
		return "", err
	}
	options := []llms.CallOption{llms.WithTools(llmTools(c))}
	if c.Stream {
		options = append(options, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	}
	if value, ok := c.Settings.Body["max_tokens"].(float64); ok && value > 0 {
		options = append(options, llms.WithMaxTokens(int(value)))
	}
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			messages = append(messages, llms.TextParts(llms.ChatMessageTypeHuman, *prompt))
		}
		if answer, messages, err = runMessages(ctx, model, c, messages, options); err != nil {
			return "", err
		}
	}
	return answer, nil
}

// runMessages is one run of the loop; a run cut off in a tool ends there, keeping what it sent.
func runMessages(ctx context.Context, model llms.Model, c *harnesskit.Case, messages []llms.MessageContent, options []llms.CallOption) (string, []llms.MessageContent, error) {
	for turn := 0; turn < maxIterations; turn++ {
		response, err := model.GenerateContent(ctx, messages, options...)
		if err != nil {
			return "", nil, err
		}
		if len(response.Choices) == 0 {
			return "", nil, errors.New("the response has no choices")
		}
		choice := response.Choices[0]
		if len(choice.ToolCalls) == 0 {
			messages = append(messages, llms.TextParts(llms.ChatMessageTypeAI, choice.Content))
			return choice.Content, messages, nil
		}
		calls := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		for _, call := range choice.ToolCalls {
			calls.Parts = append(calls.Parts, call)
		}
		messages = append(messages, calls)
		for _, call := range choice.ToolCalls {
			name, arguments := "", ""
			if call.FunctionCall != nil {
				name, arguments = call.FunctionCall.Name, call.FunctionCall.Arguments
			}
			output, err := c.CallTool(ctx, name, arguments, call.ID)
			var interrupted *harnesskit.RunInterrupted
			if errors.As(err, &interrupted) {
				return "", messages, nil
			}
			if err != nil {
				return "", nil, err
			}
			messages = append(messages, llms.MessageContent{Role: llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: call.ID, Name: name, Content: output}}})
		}
	}
	return "", nil, fmt.Errorf("the model still called tools after %d turns", maxIterations)
}

func llmTools(c *harnesskit.Case) []llms.Tool {
	var declared []llms.Tool
	for _, t := range c.Tools {
		declared = append(declared, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}
	return declared
}

// restoredMessages is the neutral history as langchaingo's message history: text parts, the AI
// message's llms.ToolCalls under their ids, and one tool message per result.
func restoredMessages(c *harnesskit.Case) ([]llms.MessageContent, error) {
	var messages []llms.MessageContent
	names := map[string]string{}
	for i, saved := range c.History {
		role := map[string]llms.ChatMessageType{"user": llms.ChatMessageTypeHuman, "assistant": llms.ChatMessageTypeAI,
			"system": llms.ChatMessageTypeSystem, "tool": llms.ChatMessageTypeTool}[saved.Role]
		if role == "" {
			return nil, fmt.Errorf("history[%d]: a message of role %q", i, saved.Role)
		}
		message := llms.MessageContent{Role: role}
		for _, part := range saved.Parts {
			kind, _ := part["type"].(string)
			callID, _ := part["call_id"].(string)
			name, _ := part["name"].(string)
			if executed, _ := part["provider_executed"].(bool); executed {
				return nil, harnesskit.Skip{Reason: "langchaingo's messages have no call the provider ran itself; " +
					"a history holding one cannot be restored"}
			}
			switch kind {
			case "text":
				text, _ := part["text"].(string)
				message.Parts = append(message.Parts, llms.TextContent{Text: text})
			case "tool_call":
				names[callID] = name
				arguments, err := json.Marshal(part["arguments"])
				if err != nil {
					return nil, fmt.Errorf("history[%d]: %w", i, err)
				}
				message.Parts = append(message.Parts, llms.ToolCall{ID: callID, Type: "function",
					FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(arguments)}})
			case "tool_result":
				if name == "" {
					name = names[callID]
				}
				output, ok := part["output"].(string)
				if !ok {
					raw, _ := json.Marshal(part["output"])
					output = string(raw)
				}
				messages = append(messages, llms.MessageContent{Role: llms.ChatMessageTypeTool,
					Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: callID, Name: name, Content: output}}})
			default:
				return nil, fmt.Errorf("history[%d]: a part of type %q", i, kind)
			}
		}
		if role != llms.ChatMessageTypeTool {
			messages = append(messages, message)
		}
	}
	return messages, nil
}
