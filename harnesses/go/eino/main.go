// The Eino harness: CloudWeGo Eino's ReAct agent (flow/agent/react) over the eino-ext chat models,
// Generate or Stream as the recording streamed, against the suite's replay server
// (docs/harness.md).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const module = "github.com/cloudwego/eino"

// The agent's graph runs a model node and a tools node per turn; this bounds the loop so a
// library that never stops calling tools meets the suite's verdict instead of its timeout.
const maxStep = 40

func main() {
	version := harnesskit.ModuleVersion(module)
	libraries := map[string]string{module: version}
	dependencies := append([]string{"github.com/cloudwego/eino-ext/libs/acl/openai", "google.golang.org/genai",
		"github.com/anthropics/anthropic-sdk-go", "github.com/eino-contrib/ollama"}, modelModules...)
	for _, dependency := range dependencies {
		if v := harnesskit.ModuleVersion(dependency); v != "" {
			libraries[dependency] = v
		}
	}
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "eino",
		Version:   version,
		Homepage:  "https://github.com/cloudwego/eino",
		Libraries: libraries,
		APIs:      []string{"openai-chat", "anthropic-messages", "gemini", "ollama-chat"},
		Continues: []string{"history", "sessions", "handoffs"},
	}, run)
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	cut := &cutOff{}
	tools, err := caseTools(c, cut)
	if err != nil {
		return "", err
	}
	chatModel, err := newModel(ctx, c)
	if err != nil {
		return "", err
	}
	agent, err := react.NewAgent(ctx, &react.AgentConfig{
		ToolCallingModel:      chatModel,
		ToolsConfig:           compose.ToolsNodeConfig{Tools: tools},
		MaxStep:               maxStep,
		StreamToolCallChecker: anyToolCall,
	})
	if err != nil {
		return "", err
	}
	if len(c.Legs) > 0 {
		conversation, err := handedOff(ctx, c)
		if err != nil {
			return "", err
		}
		return session(ctx, agent, c, conversation, cut)
	}
	if len(c.History) > 0 || len(c.Runs) > 1 {
		conversation, err := restoredMessages(c)
		if err != nil {
			return "", err
		}
		return session(ctx, agent, c, conversation, cut)
	}
	input := []*schema.Message{schema.UserMessage(c.Prompt)}
	if !c.Stream {
		answer, err := agent.Generate(ctx, input)
		if err != nil {
			return "", err
		}
		return answer.Content, nil
	}
	return streamed(ctx, agent, input)
}

// streamed runs the agent's Stream and joins the text of its answer.
func streamed(ctx context.Context, reactAgent *react.Agent, input []*schema.Message, options ...agent.AgentOption) (string, error) {
	stream, err := reactAgent.Stream(ctx, input, options...)
	if err != nil {
		return "", err
	}
	defer stream.Close()
	var text strings.Builder
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return text.String(), nil
		}
		if err != nil {
			return "", err
		}
		text.WriteString(chunk.Content)
	}
}

// anyToolCall reads the whole streamed turn for a tool call: the agent's default checker looks at
// the first chunk only, which misses calls that follow text (the agent's docs say to supply one).
func anyToolCall(_ context.Context, output *schema.StreamReader[*schema.Message]) (bool, error) {
	defer output.Close()
	for {
		chunk, err := output.Recv()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if len(chunk.ToolCalls) > 0 {
			return true, nil
		}
	}
}

// replayTool is one case tool as an Eino InvokableTool, its parameters the case's JSON Schema.
type replayTool struct {
	c    *harnesskit.Case
	tool harnesskit.Tool
	cut  *cutOff
}

func (t replayTool) Info(context.Context) (*schema.ToolInfo, error) {
	info := &schema.ToolInfo{Name: t.tool.Name, Desc: t.tool.Description}
	if t.tool.Parameters != nil {
		raw, err := json.Marshal(t.tool.Parameters)
		if err != nil {
			return nil, err
		}
		parameters := &jsonschema.Schema{}
		if err := json.Unmarshal(raw, parameters); err != nil {
			return nil, err
		}
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(parameters)
	}
	return info, nil
}

func (t replayTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	output, err := t.c.CallTool(ctx, t.tool.Name, argumentsInJSON, compose.GetToolCallID(ctx))
	t.cut.note(err)
	return output, err
}

func caseTools(c *harnesskit.Case, cut *cutOff) ([]tool.BaseTool, error) {
	var tools []tool.BaseTool
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return nil, harnesskit.Skip{Reason: "Eino's tools are functions; it has no free-form (custom) tools"}
		}
		tools = append(tools, replayTool{c: c, tool: t, cut: cut})
	}
	return tools, nil
}
