// A harness as an adapter author writes it in their own module, against the Go kit by its module path
// and version, with no replace directive (docs/harness.md, "A harness in your own repository"). Its
// "library" is the OpenAI Chat Completions tool loop below; yours is the library you ship. The suite's
// tests build it outside this repository from a module proxy holding the kit.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const kitPath = "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"

type call struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type message struct {
	Role       string  `json:"role"`
	Content    *string `json:"content"`
	ToolCalls  []call  `json:"tool_calls,omitempty"`
	ToolCallID string  `json:"tool_call_id,omitempty"`
}

func complete(ctx context.Context, c *harnesskit.Case, messages []message, tools []map[string]any) (message, error) {
	body, err := json.Marshal(map[string]any{"model": c.Model, "messages": messages, "tools": tools})
	if err != nil {
		return message{}, err
	}
	request, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return message{}, err
	}
	request.Header.Set("content-type", "application/json")
	request.Header.Set("authorization", "Bearer "+c.APIKey)
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		return message{}, err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		return message{}, err
	}
	if response.StatusCode != http.StatusOK {
		return message{}, fmt.Errorf("HTTP %d: %.300s", response.StatusCode, data)
	}
	var completion struct {
		Choices []struct {
			Message message `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &completion); err != nil || len(completion.Choices) == 0 {
		return message{}, fmt.Errorf("not a completion: %.300s", data)
	}
	return completion.Choices[0].Message, nil
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	if c.Stream {
		return "", harnesskit.Skip{Reason: "this example asks for whole responses only"}
	}
	tools := []map[string]any{}
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return "", harnesskit.Skip{Reason: "this example declares function tools only"}
		}
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
	}
	var messages []message
	last := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			messages = append(messages, message{Role: "user", Content: prompt})
		}
		for turn := 0; turn < 8; turn++ {
			answer, err := complete(ctx, c, messages, tools)
			if err != nil {
				return "", err
			}
			messages = append(messages, answer)
			if len(answer.ToolCalls) == 0 {
				if answer.Content != nil {
					last = *answer.Content
				}
				break
			}
			for _, tc := range answer.ToolCalls {
				output, err := c.CallTool(ctx, tc.Function.Name, tc.Function.Arguments, tc.ID)
				if err != nil {
					return "", err
				}
				messages = append(messages, message{Role: "tool", Content: &output, ToolCallID: tc.ID})
			}
		}
	}
	return last, nil
}

func main() {
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "example-go",
		Version:   "0.0.0",
		Libraries: map[string]string{kitPath: harnesskit.ModuleVersion(kitPath)},
		APIs:      []string{"openai-chat"},
	}, run)
}
