// The google.golang.org/genai harness: the Gemini API guide's manual function-calling loop in Go
// (Models.GenerateContent, or GenerateContentStream when the recording streamed), against the
// suite's replay server (docs/harness.md).
//
// The model's content goes back as returned (thought signatures included), then one user content
// with a FunctionResponse part per function call, carrying the call's ID where the model gave one
// and its name. A canned output that is a JSON object is the response itself; any other output
// goes as {"result": output}, as the guide does.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
	"google.golang.org/genai"
)

const module = "google.golang.org/genai"

const maxTurns = 12

func main() {
	version := harnesskit.ModuleVersion(module)
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "genai-go",
		Version:   version,
		Homepage:  "https://github.com/googleapis/go-genai",
		Libraries: map[string]string{module: version},
		APIs:      []string{"gemini"},
		Continues: []string{"history", "sessions"},
	}, run)
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	attempts := int32(1)
	http := genai.HTTPOptions{BaseURL: c.BaseURL, RetryOptions: &genai.HTTPRetryOptions{Attempts: &attempts}}
	if c.Settings.APIVersion != "" {
		http.APIVersion = c.Settings.APIVersion
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: c.APIKey, Backend: genai.BackendGeminiAPI, HTTPOptions: http})
	if err != nil {
		return "", err
	}
	config, err := generateConfig(c)
	if err != nil {
		return "", err
	}
	// A restored conversation is the saved contents, decoded into genai.Content; each run of a
	// session appends its user content to the same list, as the guide's multi-turn loop keeps it.
	contents, err := harnesskit.WireHistory[*genai.Content](c, "genai-go", "gemini")
	if err != nil {
		return "", err
	}
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			contents = append(contents, genai.NewContentFromText(*prompt, genai.RoleUser))
		}
		if answer, err = runOnce(ctx, client, c, &contents, config); err != nil {
			return "", err
		}
	}
	return answer, nil
}

// runOnce is one run of the loop on contents, which it extends with what it sends.
func runOnce(ctx context.Context, client *genai.Client, c *harnesskit.Case, contents *[]*genai.Content, config *genai.GenerateContentConfig) (string, error) {
	for turn := 0; turn < maxTurns; turn++ {
		content, err := generate(ctx, client, c, *contents, config)
		if err != nil || content == nil {
			return "", err
		}
		*contents = append(*contents, content)
		var answers []*genai.Part
		for _, part := range content.Parts {
			call := part.FunctionCall
			if call == nil {
				continue
			}
			output, err := c.CallTool(ctx, call.Name, call.Args, call.ID)
			if err != nil {
				return "", err
			}
			answers = append(answers, &genai.Part{FunctionResponse: &genai.FunctionResponse{
				ID: call.ID, Name: call.Name, Response: responseOf(output),
			}})
		}
		if len(answers) == 0 {
			return text(content), nil
		}
		*contents = append(*contents, genai.NewContentFromParts(answers, genai.RoleUser))
	}
	return "", fmt.Errorf("the model still called functions after %d turns", maxTurns)
}

// generate is one turn; a stream's content is every chunk's parts, in order.
func generate(ctx context.Context, client *genai.Client, c *harnesskit.Case, contents []*genai.Content, config *genai.GenerateContentConfig) (*genai.Content, error) {
	if !c.Stream {
		response, err := client.Models.GenerateContent(ctx, c.Model, contents, config)
		if err != nil || len(response.Candidates) == 0 {
			return nil, err
		}
		return response.Candidates[0].Content, nil
	}
	joined := &genai.Content{Role: genai.RoleModel}
	for chunk, err := range client.Models.GenerateContentStream(ctx, c.Model, contents, config) {
		if err != nil {
			return nil, err
		}
		if len(chunk.Candidates) > 0 && chunk.Candidates[0].Content != nil {
			joined.Parts = append(joined.Parts, chunk.Candidates[0].Content.Parts...)
		}
	}
	return joined, nil
}

// generateConfig declares the case's functions and the recording's server tools (Google Search,
// code execution), and carries the recorded toolConfig, generationConfig and the like.
func generateConfig(c *harnesskit.Case) (*genai.GenerateContentConfig, error) {
	fields := map[string]any{}
	if generation, ok := c.Settings.Body["generationConfig"].(map[string]any); ok {
		for key, value := range generation {
			fields[key] = value
		}
	}
	for _, key := range []string{"toolConfig", "systemInstruction", "safetySettings", "cachedContent", "labels"} {
		if value, ok := c.Settings.Body[key]; ok {
			fields[key] = value
		}
	}
	config := &genai.GenerateContentConfig{}
	if err := remarshal(fields, config); err != nil {
		return nil, fmt.Errorf("the recorded settings do not fit GenerateContentConfig: %w", err)
	}
	var declarations []*genai.FunctionDeclaration
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return nil, harnesskit.Skip{Reason: "Gemini has no free-form (custom) tools"}
		}
		declarations = append(declarations, &genai.FunctionDeclaration{
			Name: t.Name, Description: t.Description, ParametersJsonSchema: t.Parameters,
		})
	}
	if len(declarations) > 0 {
		config.Tools = append(config.Tools, &genai.Tool{FunctionDeclarations: declarations})
	}
	for _, recorded := range c.RecordedTools {
		if _, functions := recorded["functionDeclarations"]; functions {
			continue
		}
		tool := &genai.Tool{}
		if err := remarshal(recorded, tool); err != nil {
			return nil, fmt.Errorf("a recorded tool does not fit genai.Tool: %w", err)
		}
		config.Tools = append(config.Tools, tool)
	}
	return config, nil
}

func remarshal(from any, to any) error {
	raw, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, to)
}

func responseOf(output string) map[string]any {
	var value any
	if json.Unmarshal([]byte(output), &value) != nil {
		value = output
	}
	if object, ok := value.(map[string]any); ok {
		return object
	}
	return map[string]any{"result": value}
}

func text(content *genai.Content) string {
	var parts []string
	for _, part := range content.Parts {
		if part.Text != "" && !part.Thought {
			parts = append(parts, part.Text)
		}
	}
	return strings.Join(parts, "")
}
