// The anthropic-sdk-go harness: the official Go SDK's tool runner (client.Beta.Messages.NewToolRunner,
// or NewToolRunnerStreaming when the recording streamed), as its tools.md shows it, against the
// suite's replay server (docs/harness.md).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/anthropics/anthropic-sdk-go/v2/toolrunner"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const module = "github.com/anthropics/anthropic-sdk-go/v2"

// The runner stops after this many requests, so a loop that never ends meets the suite's
// verdict instead of its timeout.
const maxIterations = 12

// A client tool's declaration carries only these fields unless the recording added others
// (defer_loading, allowed_callers, input_examples, ...).
var plainToolFields = map[string]bool{"name": true, "description": true, "input_schema": true, "type": true}

func main() {
	version := harnesskit.ModuleVersion(module)
	harnesskit.Serve(harnesskit.Implementation{
		Name:      "anthropic-sdk-go",
		Version:   version,
		Homepage:  "https://github.com/anthropics/anthropic-sdk-go",
		Libraries: map[string]string{module: version},
		APIs:      []string{"anthropic-messages"},
		Continues: []string{"history", "sessions"},
	}, run)
}

func run(ctx context.Context, c *harnesskit.Case) (string, error) {
	client := anthropic.NewClient(clientOptions(c)...)
	// A restored conversation is the saved messages decoded into BetaMessageParam; each run of a
	// session is a tool runner over the conversation so far (the last runner's Messages()) with the
	// run's user message appended.
	// (The kit's WireHistory refuses a session with a cut-off run, for an SDK with no loop of its own;
	// the tool runner's loop can be stepped and cut off, below, so the history is read as any other.)
	restored := *c
	restored.Interrupted = nil
	messages, err := harnesskit.WireHistory[anthropic.BetaMessageParam](&restored, "anthropic-sdk-go", "anthropic-messages")
	if err != nil {
		return "", err
	}
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			messages = append(messages, anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock(*prompt)))
		}
		if answer, messages, err = runOnce(ctx, &client, c, &cutOff{}, messages); err != nil {
			return "", err
		}
	}
	return answer, nil
}

// runOnce runs the tool runner to its end over messages and returns its answer and the
// conversation it ends with.
//
// The runner is stepped a response at a time (NextMessage, NextStreaming), as an application does
// that keeps the conversation after each response. A tool whose run the case cuts off cancels the
// run's context (cut.stop), the way an application stops a run in progress; the step that was
// running the tools then fails, and the run ends with the conversation as it stood after the
// response that made the calls: the runner's Messages() taken before that step, no results in it.
func runOnce(ctx context.Context, client *anthropic.Client, c *harnesskit.Case, cut *cutOff, messages []anthropic.BetaMessageParam) (string, []anthropic.BetaMessageParam, error) {
	params := anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model:     c.Model,
			MaxTokens: maxTokens(c),
			Messages:  messages,
			Tools:     recordedDeclarations(c),
			Betas:     betas(c),
		},
		MaxIterations: maxIterations,
	}
	opts := bodyOptions(c)
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cut.stop = stop
	tools, err := runnerTools(c, cut)
	if err != nil {
		return "", nil, err
	}
	if !c.Stream {
		runner := client.Beta.Messages.NewToolRunner(tools, params, opts...)
		for {
			saved := runner.Messages()
			message, err := runner.NextMessage(runCtx)
			if cut.happened(runCtx) {
				return "", saved, nil
			}
			if err != nil {
				return "", nil, err
			}
			if message == nil {
				return text(runner.LastMessage()), runner.Messages(), nil
			}
		}
	}
	runner := client.Beta.Messages.NewToolRunnerStreaming(tools, params, opts...)
	for !runner.IsCompleted() {
		saved := runner.Messages()
		var failed error
		for _, err := range runner.NextStreaming(runCtx) {
			if err != nil {
				failed = err
				break
			}
		}
		if cut.happened(runCtx) {
			return "", saved, nil
		}
		if failed != nil {
			return "", nil, failed
		}
		if err := runner.Err(); err != nil {
			return "", nil, err
		}
	}
	return text(runner.LastMessage()), runner.Messages(), nil
}

// cutOff is how a tool stops the run it was called in: it cancels the run's context with the
// RunInterrupted the replay answered.
type cutOff struct{ stop context.CancelCauseFunc }

func (c *cutOff) happened(runCtx context.Context) bool {
	var interrupted *harnesskit.RunInterrupted
	return errors.As(context.Cause(runCtx), &interrupted)
}

func clientOptions(c *harnesskit.Case) []option.RequestOption {
	opts := []option.RequestOption{
		option.WithBaseURL(c.BaseURL),
		option.WithAPIKey(c.APIKey),
		option.WithMaxRetries(0),
	}
	if os.Getenv("ANTHROPIC_GO_HARNESS_TRACE") == "1" {
		opts = append(opts, option.WithDebugLog(nil))
	}
	for key, value := range c.Settings.Headers {
		// The beta list goes in the params' Betas, as the SDK's docs set it; the SDK sends its own
		// anthropic-version.
		if key = strings.ToLower(key); key != "anthropic-beta" && key != "anthropic-version" {
			opts = append(opts, option.WithHeader(key, value))
		}
	}
	return opts
}

// bodyOptions carries the recorded body fields the params above do not set (tool_choice,
// mcp_servers, thinking, ...) on every request of the runner.
func bodyOptions(c *harnesskit.Case) []option.RequestOption {
	var opts []option.RequestOption
	for key, value := range c.Settings.Body {
		switch key {
		case "model", "max_tokens", "messages", "tools", "stream":
		default:
			opts = append(opts, option.WithJSONSet(key, value))
		}
	}
	return opts
}

func maxTokens(c *harnesskit.Case) int64 {
	if value, ok := c.Settings.Body["max_tokens"].(float64); ok && value > 0 {
		return int64(value)
	}
	return 1024
}

func betas(c *harnesskit.Case) []anthropic.AnthropicBeta {
	var list []anthropic.AnthropicBeta
	for key, value := range c.Settings.Headers {
		if strings.EqualFold(key, "anthropic-beta") {
			for _, beta := range strings.Split(value, ",") {
				if beta = strings.TrimSpace(beta); beta != "" {
					list = append(list, beta)
				}
			}
		}
	}
	return list
}

// runnerTools are the case's tools as the tool runner's BetaTools (toolrunner.NewBetaToolFromBytes
// with a json.RawMessage input, as tools.md's "Raw JSON Input" shows); each asks the replay.
func runnerTools(c *harnesskit.Case, cut *cutOff) ([]anthropic.BetaTool, error) {
	var tools []anthropic.BetaTool
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return nil, harnesskit.Skip{Reason: "the Messages API has no free-form (custom) tools"}
		}
		schema := t.Parameters
		if schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		raw, err := json.Marshal(schema)
		if err != nil {
			return nil, err
		}
		name := t.Name
		tool, err := toolrunner.NewBetaToolFromBytes(name, t.Description, raw,
			func(ctx context.Context, input json.RawMessage) (anthropic.BetaToolResultBlockParamContentUnion, error) {
				output, err := c.CallTool(ctx, name, input, "")
				var interrupted *harnesskit.RunInterrupted
				if errors.As(err, &interrupted) {
					cut.stop(interrupted)
				}
				if err != nil {
					return anthropic.BetaToolResultBlockParamContentUnion{}, err
				}
				return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{Text: output}}, nil
			})
		if err != nil {
			return nil, err
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// recordedDeclarations are the recorded tools the runner's own declarations would not reproduce:
// the server's tools (web search, code execution, MCP toolsets, ...) and client tools with fields
// beyond name, description and schema. The runner keeps a declaration given in Params.Tools and
// runs the BetaTool of that name.
func recordedDeclarations(c *harnesskit.Case) []anthropic.BetaToolUnionParam {
	var declarations []anthropic.BetaToolUnionParam
	for _, recorded := range c.RecordedTools {
		kind, _ := recorded["type"].(string)
		keep := kind != "" && kind != "custom"
		for field := range recorded {
			keep = keep || !plainToolFields[field]
		}
		if !keep {
			continue
		}
		if raw, err := json.Marshal(recorded); err == nil {
			declarations = append(declarations, param.Override[anthropic.BetaToolUnionParam](json.RawMessage(raw)))
		}
	}
	return declarations
}

func text(message *anthropic.BetaMessage) string {
	if message == nil {
		return ""
	}
	var parts []string
	for _, block := range message.Content {
		if block.Type == "text" {
			parts = append(parts, block.Text)
		}
	}
	return strings.Join(parts, "")
}
