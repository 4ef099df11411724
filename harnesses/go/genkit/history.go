package genkitharness

import (
	"encoding/json"
	"fmt"

	"github.com/firebase/genkit/go/ai"

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
