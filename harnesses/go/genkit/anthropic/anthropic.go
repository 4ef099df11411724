// Package anthropic starts Genkit Go's Anthropic plugin for a case: shared by the harnesses of the
// versions that have the plugin (v1.3.0 and later), apart from the shared plugins module, which
// builds against v0.7.0, before the plugin existed.
package anthropic

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/anthropic"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// Start initialises Genkit with the Anthropic plugin pointed at the case's replay, for v1.3.0 and
// v1.4.0, whose plugin sets the request's tools to the declarations of ai.WithTools alone
// (toAnthropicRequest, plugins/internal/anthropic/anthropic.go: req.Tools = tools): a server tool
// given in the config is dropped, so a case that uses one is a skip saying so.
func Start(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	if err := noMCPServers(c); err != nil {
		return nil, nil, err
	}
	if tools := serverTools(c); len(tools) > 0 {
		return nil, nil, harnesskit.Skip{Reason: fmt.Sprintf("this Genkit Go version's Anthropic plugin sets the request's "+
			"MessageNewParams.Tools to the declarations of ai.WithTools alone (toAnthropicRequest, "+
			"plugins/internal/anthropic/anthropic.go): the server tool %s given in its config is dropped", typeNames(tools))}
	}
	return start(ctx, c, nil)
}

// StartServerTools is Start for v1.12.0, whose plugin appends the declarations of ai.WithTools to
// the tools of its config, which are "reserved for server-side tools (web search, code execution,
// etc.)" (toAnthropicRequest, rejectManagedConfig): the recorded request's server tools are given
// there, in the config config makes of them (the version's own SDK types). What the plugin's
// config cannot hold is a skip that names it: the config is the SDK's anthropic.MessageNewParams,
// sent with client.Messages.New, which has no mcp_servers (the SDK's BetaMessageNewParams has), and
// Genkit's ai.ToolDefinition has no allowed_callers.
func StartServerTools(config func(maxTokens int64, serverTools []map[string]any) any) func(context.Context, *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	return func(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
		if err := noMCPServers(c); err != nil {
			return nil, nil, err
		}
		for _, t := range c.Tools {
			if len(t.AllowedCallers) > 0 {
				return nil, nil, harnesskit.Skip{Reason: fmt.Sprintf("Genkit's ai.ToolDefinition has no allowed_callers: "+
					"the tool %s that the scenario's code calls cannot be declared", t.Name)}
			}
		}
		tools := serverTools(c)
		if len(tools) == 0 {
			return start(ctx, c, nil)
		}
		return start(ctx, c, config(maxTokens(c), tools))
	}
}

// noMCPServers is the skip of a case whose recorded request named MCP servers: the plugin's config is
// the SDK's anthropic.MessageNewParams, sent with client.Messages.New, which has no mcp_servers.
func noMCPServers(c *harnesskit.Case) error {
	if _, ok := c.Settings.Body["mcp_servers"]; ok {
		return harnesskit.Skip{Reason: "the Anthropic plugin's config is the SDK's anthropic.MessageNewParams, " +
			"sent with client.Messages.New, which has no mcp_servers (only BetaMessageNewParams has): an MCP server cannot be declared"}
	}
	return nil
}

func maxTokens(c *harnesskit.Case) int64 {
	if value, ok := c.Settings.Body["max_tokens"].(float64); ok && value > 0 {
		return int64(value)
	}
	return 1024
}

// start initialises the plugin. It refuses a request without max_tokens ("maxTokens not set"), as
// the Messages API does; its config is the SDK's MessageNewParams, given here as the recording's
// value, or config when the case has server tools to declare.
func start(ctx context.Context, c *harnesskit.Case, config any) (*genkit.Genkit, ai.CommonGenOption, error) {
	g := genkit.Init(ctx, genkit.WithPlugins(&anthropic.Anthropic{APIKey: c.APIKey, BaseURL: c.BaseURL}))
	if config == nil {
		config = map[string]any{"max_tokens": maxTokens(c)}
	}
	return g, ai.WithModel(ai.NewModelRef("anthropic/"+c.Model, config)), nil
}

// serverTools are the recorded request's server tools (web search, code execution, ...): its
// tools with a type other than a client tool's, as the request wrote them.
func serverTools(c *harnesskit.Case) []map[string]any {
	var tools []map[string]any
	for _, recorded := range c.RecordedTools {
		if kind, _ := recorded["type"].(string); kind != "" && kind != "custom" {
			tools = append(tools, recorded)
		}
	}
	return tools
}

func typeNames(tools []map[string]any) string {
	var names []string
	for _, t := range tools {
		names = append(names, fmt.Sprint(t["type"]))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
