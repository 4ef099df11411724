// Package genkitharness runs Genkit Go's own tool loop for the harness protocol: genkit.Generate
// with the case's tools, each answered by the replay server. What changed between Genkit versions
// (starting Genkit with a plugin, declaring a tool from a JSON Schema) comes from the version's
// own harness module as a Backend; the loop itself uses only API that every harnessed version has.
package genkitharness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

const genkitModule = "github.com/firebase/genkit/go"

// Genkit stops a loop after MaxTurns model calls with tool requests (5 by default); recordings may
// hold longer chains, and the replay already answers a turn past the end with an error.
const maxTurns = 16

// ToolFunc is a tool's implementation as a Backend declares it: input is what Genkit parsed.
type ToolFunc func(ctx context.Context, input any) (any, error)

// Backend is what one Genkit version needs beyond the shared loop.
type Backend struct {
	// Served maps each suite API the version serves to the plugin setup for it.
	Served map[string]Start
	// Unsupported gives the reason for each API the version does not serve.
	Unsupported map[string]string
	// Libraries are the module paths whose built-in versions the harness reports.
	Libraries []string
	// DefineTool declares one tool with a JSON Schema as its input schema.
	DefineTool func(g *genkit.Genkit, name, description string, schema map[string]any, fn ToolFunc) ai.ToolRef
}

// Start initialises Genkit with the plugin that serves the case's API, pointed at the replay, and
// returns it with the option that names the model to generate with.
type Start func(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error)

// Main serves the harness protocol for one Genkit version.
func Main(b Backend) {
	version := strings.TrimPrefix(harnesskit.ModuleVersion(genkitModule), "v")
	libraries := map[string]string{}
	for _, path := range append([]string{genkitModule}, b.Libraries...) {
		if v := harnesskit.ModuleVersion(path); v != "" {
			libraries[path] = v
		}
	}
	apis := make([]string, 0, len(b.Served))
	for api := range b.Served {
		apis = append(apis, api)
	}
	sort.Strings(apis)
	harnesskit.Serve(harnesskit.Implementation{
		Name: "genkit-go", Version: version, Homepage: "https://genkit.dev/go/",
		Libraries: libraries, APIs: apis, Unsupported: b.Unsupported,
		Continues: []string{"history", "sessions", "handoffs"},
	}, func(ctx context.Context, c *harnesskit.Case) (string, error) { return Run(ctx, b, c) })
}

// Run runs one case through Genkit's loop.
func Run(ctx context.Context, b Backend, c *harnesskit.Case) (string, error) {
	start, ok := b.Served[c.API]
	if !ok {
		reason := b.Unsupported[c.API]
		if reason == "" {
			reason = "this Genkit Go version has no plugin for " + c.API
		}
		return "", harnesskit.Skip{Reason: reason}
	}
	for _, t := range c.Tools {
		if t.Type == "custom" {
			return "", harnesskit.Skip{Reason: fmt.Sprintf(
				"Genkit tools take JSON input against a schema; it cannot declare the free-form custom tool '%s'", t.Name)}
		}
	}
	g, model, err := start(ctx, c)
	if err != nil {
		return "", err
	}
	order := newCallOrder()
	tools := defineTools(b, g, c, order)
	options := []ai.GenerateOption{model, ai.WithTools(tools...), ai.WithMaxTurns(maxTurns), ai.WithMiddleware(order.middleware)}
	if choice := toolChoice(c); choice != "" {
		options = append(options, ai.WithToolChoice(choice))
	}
	if c.Stream {
		// Genkit reassembles the stream itself; the chunks are only drained.
		options = append(options, ai.WithStreaming(func(context.Context, *ai.ModelResponseChunk) error { return nil }))
	}
	if len(c.History) == 0 && len(c.Runs) <= 1 && len(c.Legs) == 0 {
		response, err := genkit.Generate(ctx, g, append(options, ai.WithPrompt(c.Prompt))...)
		if err != nil {
			return "", err
		}
		return response.Text(), nil
	}
	return session(ctx, b, g, c, options)
}

// defineTools declares the case's tools on g, each answered by the replay in the order the model
// made the calls.
func defineTools(b Backend, g *genkit.Genkit, c *harnesskit.Case, order *callOrder) []ai.ToolRef {
	tools := make([]ai.ToolRef, 0, len(c.Tools))
	for _, t := range c.Tools {
		name := t.Name
		schema := t.Parameters
		if schema == nil {
			schema = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, b.DefineTool(g, name, t.Description, schema, func(ctx context.Context, input any) (any, error) {
			return order.run(name, input, func() (any, error) {
				arguments := input
				if arguments == nil {
					arguments = map[string]any{}
				}
				output, err := c.CallTool(ctx, name, arguments, "")
				var interrupted *harnesskit.RunInterrupted
				if tc, ok := ctx.(*ai.ToolContext); ok && errors.As(err, &interrupted) {
					// A run cut off in its tool stops the way Genkit lets a tool stop its loop
					// (ToolContext.Interrupt): Generate returns the response so far, its calls unanswered.
					return nil, tc.Interrupt(&ai.InterruptOptions{Metadata: map[string]any{"reason": interrupted.Reason}})
				}
				if err != nil {
					return nil, err
				}
				return toolResult(output), nil
			})
		}))
	}
	return tools
}

// session plays a restored conversation and a session's runs the way a Genkit chat keeps going:
// each run is genkit.Generate over the conversation so far (ai.WithMessages), the run's user
// message appended, and the next run continues the response's History(). A run cut off in its tool
// ends interrupted (FinishReason "interrupted"), its History() ending on the model's calls.
func session(ctx context.Context, b Backend, g *genkit.Genkit, c *harnesskit.Case, options []ai.GenerateOption) (string, error) {
	var messages []*ai.Message
	var err error
	if len(c.Legs) > 0 {
		messages, err = handedOff(ctx, b, c)
	} else {
		messages, err = restoredMessages(c)
	}
	if err != nil {
		return "", err
	}
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			messages = append(messages, ai.NewUserTextMessage(*prompt))
		}
		response, err := genkit.Generate(ctx, g, append(options, ai.WithMessages(messages...))...)
		if err != nil {
			return "", err
		}
		answer, messages = response.Text(), response.History()
	}
	return answer, nil
}

// toolResult is a tool's output as an application's tool would return it: the JSON value when the
// replay's output is JSON text (so that Genkit encodes it once, not as a quoted string), else the text.
func toolResult(output string) any {
	var value any
	if err := json.Unmarshal([]byte(output), &value); err == nil {
		if _, isObject := value.(map[string]any); isObject {
			return value
		}
	}
	return output
}

func toolChoice(c *harnesskit.Case) ai.ToolChoice {
	switch choice := c.Settings.Body["tool_choice"].(type) {
	case string:
		switch choice {
		case "auto":
			return ai.ToolChoiceAuto
		case "none":
			return ai.ToolChoiceNone
		case "required", "any":
			return ai.ToolChoiceRequired
		}
	case map[string]any:
		if choice["type"] == "any" {
			return ai.ToolChoiceRequired
		}
	}
	return ""
}

// SetEnv sets an environment variable for the plugins that read their endpoint from one (the
// Gemini and Anthropic SDKs); the harness runs one case at a time.
func SetEnv(name, value string) {
	if err := os.Setenv(name, value); err != nil {
		fmt.Fprintln(os.Stderr, "harness: setenv", name, err)
	}
}

// ModelName is the case's model without the "models/" prefix Gemini recordings carry.
func ModelName(c *harnesskit.Case) string {
	return strings.TrimPrefix(c.Model, "models/")
}
