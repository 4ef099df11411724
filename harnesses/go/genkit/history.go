package genkitharness

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// restoredMessages is a saved conversation as Genkit stores one: ai.Messages, provider-neutral, so
// that a history begun on any provider is restored (ai.WithMessages) on the case's model, as an
// application keeps a chat's response.History(). A call's id is its Ref; Gemini's thought signature
// goes in the part's metadata, where Genkit's googlegenai plugin keeps it.
func restoredMessages(c *harnesskit.Case) ([]*ai.Message, error) {
	var messages []*ai.Message
	names := map[string]string{}
	for i, saved := range c.History {
		var parts []*ai.Part
		for _, part := range saved.Parts {
			kind, _ := part["type"].(string)
			callID, _ := part["call_id"].(string)
			name, _ := part["name"].(string)
			if executed, _ := part["provider_executed"].(bool); executed {
				return nil, harnesskit.Skip{Reason: "Genkit's messages have no call the provider ran itself; " +
					"a history holding one cannot be restored"}
			}
			switch kind {
			case "text":
				text, _ := part["text"].(string)
				parts = append(parts, ai.NewTextPart(text))
			case "tool_call":
				names[callID] = name
				request := ai.NewToolRequestPart(&ai.ToolRequest{Name: name, Ref: callID, Input: part["arguments"]})
				if signature := thoughtSignature(part); signature != "" {
					request.Metadata = map[string]any{"signature": signature}
				}
				parts = append(parts, request)
			case "tool_result":
				if name == "" {
					name = names[callID]
				}
				output := toolResult(outputText(part["output"]))
				parts = append(parts, ai.NewToolResponsePart(&ai.ToolResponse{Name: name, Ref: callID, Output: output}))
			default:
				return nil, fmt.Errorf("history[%d]: a part of type %q", i, kind)
			}
		}
		role := map[string]ai.Role{"user": ai.RoleUser, "assistant": ai.RoleModel, "tool": ai.RoleTool, "system": ai.RoleSystem}[saved.Role]
		if role == "" {
			return nil, fmt.Errorf("history[%d]: a message of role %q", i, saved.Role)
		}
		messages = append(messages, &ai.Message{Role: role, Content: parts})
	}
	return messages, nil
}

func thoughtSignature(part map[string]any) string {
	extra, _ := part["extra"].(map[string]any)
	for _, key := range []string{"thoughtSignature", "thought_signature"} {
		if signature, ok := extra[key].(string); ok {
			return signature
		}
	}
	return ""
}

// outputText keeps the encoding of an output that is not text as JSON text.
func outputText(value any) string {
	if text, ok := value.(string); ok {
		return text
	}
	raw, _ := json.Marshal(value)
	return string(raw)
}

// handedOff runs the conversation's first legs, each on its own API's plugin (a Genkit of its own
// pointed at that leg), and returns the conversation to continue on the case's model, as Genkit
// documents switching models: the same messages handed to another model. A leg is its steps of
// genkit.Generate with ai.WithReturnToolRequests, the model's calls answered by the application
// (Genkit's way to stop its loop at a model response): the leg sends nothing after its last calls.
func handedOff(ctx context.Context, b Backend, c *harnesskit.Case) ([]*ai.Message, error) {
	messages := []*ai.Message{ai.NewUserTextMessage(c.Prompt)}
	for _, leg := range c.Legs {
		start, ok := b.Served[leg.API]
		if !ok {
			return nil, harnesskit.Skip{Reason: "the conversation begins on " + leg.API +
				", for which this Genkit Go version has no plugin"}
		}
		onLeg := c.OnLeg(leg)
		g, model, err := start(ctx, onLeg)
		if err != nil {
			return nil, err
		}
		options := []ai.GenerateOption{model, ai.WithTools(defineTools(b, g, onLeg, newCallOrder())...), ai.WithReturnToolRequests(true)}
		if onLeg.Stream {
			options = append(options, ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
		}
		for step := 0; step < leg.Steps; step++ {
			response, err := genkit.Generate(ctx, g, append(options, ai.WithMessages(messages...))...)
			if err != nil {
				return nil, err
			}
			messages = response.History()
			var answers []*ai.Part
			for _, part := range response.Message.Content {
				if !part.IsToolRequest() {
					continue
				}
				request := part.ToolRequest
				output, err := onLeg.CallTool(ctx, request.Name, request.Input, request.Ref)
				if err != nil {
					return nil, err
				}
				answers = append(answers, ai.NewToolResponsePart(&ai.ToolResponse{Name: request.Name, Ref: request.Ref, Output: toolResult(output)}))
			}
			if len(answers) == 0 {
				break
			}
			messages = append(messages, ai.NewMessage(ai.RoleTool, nil, answers...))
		}
	}
	return messages, nil
}
