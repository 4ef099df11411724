// The langchaingo harness: LangChain Go's agent executor (agents.NewExecutor over
// agents.NewOpenAIFunctionsAgent, the agent that drives a model's native tool calls) on each
// provider langchaingo has, against the suite's replay server (docs/harness.md).
package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const module = "github.com/tmc/langchaingo"

// The executor stops after this many agent steps, so a loop that never ends meets the suite's
// verdict instead of its timeout.
const maxIterations = 12

func main() {
	version := harnesskit.ModuleVersion(module)
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "langchaingo",
		Version:   version,
		Homepage:  "https://github.com/tmc/langchaingo",
		Libraries: libraries(version),
		APIs:      []string{"openai-chat", "anthropic-messages", "gemini", "mistral-chat"},
		Unsupported: map[string]string{
			// llms/ollama builds each message from its text and images only and its client's
			// response type has no tool calls: the agent's functions never reach Ollama.
			"ollama-chat":      "langchaingo's ollama provider sends no tools and reads no tool calls",
			"openai-responses": "langchaingo's openai provider speaks Chat Completions only",
			"bedrock-converse": "langchaingo's bedrock provider calls InvokeModel, not Converse",
		},
		// Continued through the message history, not the executor (continued.go).
		Continues: []string{"history", "sessions"},
	}, run)
}

func libraries(version string) map[string]string {
	found := map[string]string{module: version}
	for _, dependency := range []string{"github.com/google/generative-ai-go", "github.com/gage-technologies/mistral-go"} {
		if v := harnesskit.ModuleVersion(dependency); v != "" {
			found[dependency] = v
		}
	}
	return found
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	toolset, err := caseTools(c)
	if err != nil {
		return "", err
	}
	if err := serverToolsAlone(c); err != nil {
		return "", err
	}
	model, closeModel, err := newModel(ctx, c)
	if err != nil {
		return "", err
	}
	defer closeModel()
	if len(c.History) > 0 || len(c.Runs) > 1 {
		return continued(ctx, model, c)
	}
	agent := agents.NewOpenAIFunctionsAgent(model, toolset)
	executor := agents.NewExecutor(agent, agents.WithMaxIterations(maxIterations))
	var options []chains.ChainCallOption
	if c.Stream {
		// The agent streams when the call has a streaming function (agents/openai_functions_agent.go).
		options = append(options, chains.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
	}
	if value, ok := c.Settings.Body["max_tokens"].(float64); ok && value > 0 {
		options = append(options, chains.WithMaxTokens(int(value)))
	}
	return chains.Run(ctx, executor, c.Prompt, options...)
}

// replayTool is one case tool as a langchaingo tools.Tool: the agent hands it the call's
// arguments as text, which the replay parses.
type replayTool struct {
	c    *harnesskit.Case
	tool harnesskit.Tool
}

func (t replayTool) Name() string        { return t.tool.Name }
func (t replayTool) Description() string { return t.tool.Description }
func (t replayTool) Call(ctx context.Context, input string) (string, error) {
	return t.c.CallTool(ctx, t.tool.Name, input, "")
}

func caseTools(c *harnesskit.Case) ([]tools.Tool, error) {
	var toolset []tools.Tool
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return nil, harnesskit.Skip{Reason: "langchaingo's tools are functions; it has no free-form (custom) tools"}
		}
		toolset = append(toolset, replayTool{c: c, tool: t})
	}
	return toolset, nil
}

// serverToolsAlone is the skip of a case whose recorded request declared the provider's own tools
// and no function tool, or an Anthropic toolset whose members the scenario calls: langchaingo's
// providers declare function tools only, so its request holds none of the case's tools, or not the
// toolset its members belong to. (Beside function tools, a case is judged on what the provider does
// with those.)
func serverToolsAlone(c *harnesskit.Case) error {
	var kinds []string
	for _, recorded := range c.RecordedTools {
		switch c.API {
		case "anthropic-messages":
			if kind, _ := recorded["type"].(string); kind != "" && kind != "custom" {
				kinds = append(kinds, kind)
			}
		case "gemini":
			for key := range recorded {
				if key != "functionDeclarations" && key != "function_declarations" {
					kinds = append(kinds, key)
				}
			}
		}
	}
	if len(kinds) == 0 || (len(c.Tools) > 0 && !slices.ContainsFunc(kinds, isToolset)) {
		return nil
	}
	sort.Strings(kinds)
	if c.API == "gemini" {
		return harnesskit.Skip{Reason: fmt.Sprintf("langchaingo's Google AI provider declares function tools only: convertTools "+
			"(llms/googleai/googleai.go) refuses a tool whose Type is not \"function\" and writes one genai.Tool of "+
			"FunctionDeclarations, with no way to declare %s", strings.Join(kinds, ", "))}
	}
	return harnesskit.Skip{Reason: fmt.Sprintf("langchaingo's Anthropic provider declares function tools only: its request's "+
		"anthropicclient.Tool has a name, description and input_schema and no type "+
		"(llms/anthropic/internal/anthropicclient/messages.go), with no way to declare %s", strings.Join(kinds, ", "))}
}

func isToolset(kind string) bool { return strings.Contains(kind, "toolset") }

func unsupported(api string) error {
	return harnesskit.Skip{Reason: fmt.Sprintf("langchaingo has no provider for %s", strings.TrimSpace(api))}
}
