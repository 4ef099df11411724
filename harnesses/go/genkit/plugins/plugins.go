// Package genkitplugins is the plugin setup and tool declaration of Genkit Go v0.7.0 and later,
// where plugins' Init no longer takes the Genkit instance, genkit.Init returns no error, models
// are resolved by name on first use, and DefineToolWithInputSchema takes a map. Every harnessed
// version from v0.7.0 on builds its harness from this package; a version adds what its module
// has beyond it (the Anthropic plugin from v1.3.0).
package genkitplugins

import (
	"context"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/firebase/genkit/go/plugins/googlegenai"
	"github.com/firebase/genkit/go/plugins/ollama"
	"github.com/openai/openai-go/option"

	genkitharness "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// Unsupported are the APIs no harnessed Genkit Go version serves, with the reason.
var Unsupported = map[string]string{
	"openai-responses": "compat_oai speaks Chat Completions only; it has no Responses API model",
	"azure-foundry":    "Genkit Go has no Azure AI Foundry plugin, and compat_oai has no Responses API model",
	"openresponses":    "compat_oai speaks Chat Completions only; it has no Open Responses model",
	"bedrock-converse": "Genkit Go has no first-party Amazon Bedrock plugin",
	"cohere-v2":        "Genkit Go has no first-party Cohere plugin",
}

// Backend is the harness of a Genkit Go version from v0.7.0 on: compat_oai for Chat Completions
// (OpenAI's plugin, and OpenAI-compatible servers under their provider names), googlegenai for
// Gemini, ollama for Ollama; extra adds or replaces APIs the version's module has beyond these.
func Backend(extra map[string]genkitharness.Start, extraLibraries ...string) genkitharness.Backend {
	served := map[string]genkitharness.Start{
		"openai-chat":  StartOpenAI,
		"kimi-chat":    StartCompatible("moonshot"),
		"mistral-chat": StartCompatible("mistral"),
		"gemini":       StartGoogleAI,
		"ollama-chat":  StartOllama,
	}
	unsupported := map[string]string{}
	for api, reason := range Unsupported {
		unsupported[api] = reason
	}
	if _, ok := extra["anthropic-messages"]; !ok {
		unsupported["anthropic-messages"] = "this Genkit Go version has no Anthropic plugin; compat_oai/anthropic speaks Anthropic's OpenAI-compatible Chat Completions endpoint, not the Messages API"
	}
	for api, start := range extra {
		served[api] = start
	}
	return genkitharness.Backend{
		Served:      served,
		Unsupported: unsupported,
		Libraries:   append([]string{"github.com/openai/openai-go", "google.golang.org/genai"}, extraLibraries...),
		DefineTool:  DefineTool,
	}
}

// DefineTool declares a tool whose input schema is the case's JSON Schema.
func DefineTool(g *genkit.Genkit, name, description string, schema map[string]any, fn genkitharness.ToolFunc) ai.ToolRef {
	return genkit.DefineToolWithInputSchema(g, name, description, schema,
		func(ctx *ai.ToolContext, in any) (any, error) { return fn(ctx, in) })
}

func clientOptions(c *harnesskit.Case) []option.RequestOption {
	return []option.RequestOption{option.WithBaseURL(c.BaseURL), option.WithMaxRetries(0)}
}

// StartOpenAI: compat_oai's OpenAI plugin, pointed at the replay with the client option its
// README shows; models outside its list are resolved by name.
func StartOpenAI(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	plugin := &openai.OpenAI{APIKey: c.APIKey, Opts: clientOptions(c)}
	g := genkit.Init(ctx, genkit.WithPlugins(plugin))
	return g, chatModel(g, "openai", c.Model, plugin.DefineModel), nil
}

// StartCompatible: compat_oai's OpenAI-compatible plugin under a provider name.
func StartCompatible(provider string) genkitharness.Start {
	return func(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
		plugin := &compat_oai.OpenAICompatible{Provider: provider,
			Opts: append([]option.RequestOption{option.WithAPIKey(c.APIKey)}, clientOptions(c)...)}
		g := genkit.Init(ctx, genkit.WithPlugins(plugin))
		return g, chatModel(g, provider, c.Model, func(id string, opts ai.ModelOptions) ai.Model {
			return plugin.DefineModel(provider, id, opts)
		}), nil
	}
}

// chatModel names a compat_oai model. Genkit resolves "provider/id" on first use, except, before
// v1.0.0, an id that holds a slash (moonshotai/Kimi-K2-Instruct); such a model is defined by the
// application with the plugin's DefineModel, registered under its name, as for any model the
// plugin does not list.
func chatModel(g *genkit.Genkit, provider, id string, define func(string, ai.ModelOptions) ai.Model) ai.CommonGenOption {
	name := provider + "/" + id
	if genkit.LookupModel(g, name) != nil {
		return ai.WithModelName(name)
	}
	opts := ai.ModelOptions{Label: name, Supports: &compat_oai.Multimodal, Versions: []string{}}
	return ai.WithModel(genkit.DefineModel(g, name, &opts, define(id, opts).Generate))
}

// StartGoogleAI: the plugin builds its genai client without a base URL (before v1.12 it has no
// option for one); the genai SDK reads it from the environment. The recorded request's built-in
// tools are declared in the model's config, which before v1.3.0 the plugin keeps only when the
// application declares no tools of its own (genkitharness.GeminiConfig).
func StartGoogleAI(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	return startGoogleAI(ctx, c, false)
}

// StartGoogleAIBuiltIns is StartGoogleAI for v1.3.0 on, whose plugin keeps the config's built-in
// tools beside the application's (mergeTools).
func StartGoogleAIBuiltIns(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	return startGoogleAI(ctx, c, true)
}

func startGoogleAI(ctx context.Context, c *harnesskit.Case, keepsBuiltIns bool) (*genkit.Genkit, ai.CommonGenOption, error) {
	config, err := genkitharness.GeminiConfig(c, keepsBuiltIns)
	if err != nil {
		return nil, nil, err
	}
	genkitharness.SetEnv("GOOGLE_GEMINI_BASE_URL", c.BaseURL)
	g := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{APIKey: c.APIKey}))
	name := "googleai/" + genkitharness.ModelName(c)
	if config == nil {
		return g, ai.WithModelName(name), nil
	}
	return g, ai.WithModel(ai.NewModelRef(name, config)), nil
}

// StartOllama: Ollama models are declared by the application; tools are on for the declared model.
func StartOllama(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	plugin := &ollama.Ollama{ServerAddress: c.BaseURL}
	g := genkit.Init(ctx, genkit.WithPlugins(plugin))
	model := plugin.DefineModel(g, ollama.ModelDefinition{Name: c.Model, Type: "chat"},
		&ai.ModelOptions{Supports: &ai.ModelSupports{Multiturn: true, SystemRole: true, Tools: true}})
	return g, ai.WithModel(model), nil
}
