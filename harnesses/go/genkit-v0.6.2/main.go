// The Genkit Go v0.6.2 harness: the shared loop (harnesses/go/genkit) with this version's plugin
// setup and tool declaration.
//
// v0.6.2 differs from later versions where the harness touches it: genkit.Init returns an error,
// plugins' Init takes the Genkit instance, and DefineToolWithInputSchema takes an invopop
// *jsonschema.Schema rather than a map.
package main

import (
	"context"
	"encoding/json"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai"
	"github.com/firebase/genkit/go/plugins/compat_oai/openai"
	"github.com/firebase/genkit/go/plugins/googlegenai"
	"github.com/firebase/genkit/go/plugins/ollama"
	"github.com/invopop/jsonschema"
	"github.com/openai/openai-go/option"

	genkitharness "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

func main() {
	genkitharness.Main(genkitharness.Backend{
		Served: map[string]genkitharness.Start{
			"openai-chat":  startOpenAI,
			"kimi-chat":    startCompatible("moonshot"),
			"mistral-chat": startCompatible("mistral"),
			"gemini":       startGoogleAI,
			"ollama-chat":  startOllama,
		},
		Unsupported: map[string]string{
			"anthropic-messages": "Genkit Go v0.6.2 has no Anthropic plugin; compat_oai/anthropic speaks Anthropic's OpenAI-compatible Chat Completions endpoint, not the Messages API",
			"openai-responses":   "compat_oai speaks Chat Completions only; it has no Responses API model",
			"azure-foundry":      "Genkit Go has no Azure AI Foundry plugin, and compat_oai has no Responses API model",
			"openresponses":      "compat_oai speaks Chat Completions only; it has no Open Responses model",
			"bedrock-converse":   "Genkit Go has no first-party Amazon Bedrock plugin",
			"cohere-v2":          "Genkit Go has no first-party Cohere plugin",
		},
		Libraries:  []string{"github.com/openai/openai-go", "google.golang.org/genai"},
		DefineTool: defineTool,
	})
}

func defineTool(g *genkit.Genkit, name, description string, schema map[string]any, fn genkitharness.ToolFunc) ai.ToolRef {
	var input jsonschema.Schema
	data, _ := json.Marshal(schema)
	if err := json.Unmarshal(data, &input); err != nil {
		panic("tool " + name + ": its parameters are not a JSON Schema: " + err.Error())
	}
	return genkit.DefineToolWithInputSchema(g, name, description, &input,
		func(ctx *ai.ToolContext, in any) (any, error) { return fn(ctx, in) })
}

func clientOptions(c *harnesskit.Case) []option.RequestOption {
	return []option.RequestOption{option.WithBaseURL(c.BaseURL), option.WithMaxRetries(0)}
}

// A model outside the plugin's list is defined by the application, as compat_oai's README shows;
// Genkit's lookup by name cannot resolve one whose id holds a slash (moonshotai/Kimi-K2-Instruct).
var chatModel = ai.ModelInfo{Supports: &compat_oai.Multimodal, Versions: []string{}}

func startOpenAI(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	plugin := &openai.OpenAI{APIKey: c.APIKey, Opts: clientOptions(c)}
	g, err := genkit.Init(ctx, genkit.WithPlugins(plugin))
	if err != nil {
		return nil, nil, err
	}
	model := plugin.Model(g, c.Model)
	if model == nil {
		if model, err = plugin.DefineModel(g, c.Model, chatModel); err != nil {
			return nil, nil, err
		}
	}
	return g, ai.WithModel(model), nil
}

func startCompatible(provider string) genkitharness.Start {
	return func(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
		plugin := &compat_oai.OpenAICompatible{Provider: provider,
			Opts: append([]option.RequestOption{option.WithAPIKey(c.APIKey)}, clientOptions(c)...)}
		g, err := genkit.Init(ctx, genkit.WithPlugins(plugin))
		if err != nil {
			return nil, nil, err
		}
		model, err := plugin.DefineModel(g, provider, c.Model, chatModel)
		return g, ai.WithModel(model), err
	}
}

// The plugin builds its genai client without a base URL; the genai SDK reads it from the
// environment. The recorded request's built-in tools go in the model's config, which the plugin
// keeps only when the application declares no tools of its own (genkitharness.GeminiConfig).
func startGoogleAI(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	config, err := genkitharness.GeminiConfig(c, false)
	if err != nil {
		return nil, nil, err
	}
	genkitharness.SetEnv("GOOGLE_GEMINI_BASE_URL", c.BaseURL)
	g, err := genkit.Init(ctx, genkit.WithPlugins(&googlegenai.GoogleAI{APIKey: c.APIKey}))
	name := "googleai/" + genkitharness.ModelName(c)
	if config == nil {
		return g, ai.WithModelName(name), err
	}
	return g, ai.WithModel(ai.NewModelRef(name, config)), err
}

// Ollama models are declared by the application; tools are on for the declared model.
func startOllama(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	plugin := &ollama.Ollama{ServerAddress: c.BaseURL}
	g, err := genkit.Init(ctx, genkit.WithPlugins(plugin))
	if err != nil {
		return nil, nil, err
	}
	model := plugin.DefineModel(g, ollama.ModelDefinition{Name: c.Model, Type: "chat"},
		&ai.ModelInfo{Supports: &ai.ModelSupports{Multiturn: true, SystemRole: true, Tools: true}})
	return g, ai.WithModel(model), nil
}
