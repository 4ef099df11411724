// The Genkit Go v1.12.0 harness: the shared loop with the plugin setup of v0.7.0 and later
// (harnesses/go/genkit/plugins), the Anthropic plugin, which Genkit Go has from v1.3.0
// (harnesses/go/genkit/anthropic), and compat_oai's Kimi plugin, which replaces the generic
// OpenAI-compatible one for Kimi.
package main

import (
	"context"
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/compat_oai/kimi"
	"github.com/openai/openai-go/option"

	genkitharness "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit"
	genkitanthropic "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/anthropic"
	genkitplugins "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/plugins"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

func main() {
	genkitharness.Main(genkitplugins.Backend(map[string]genkitharness.Start{
		"anthropic-messages": genkitanthropic.StartServerTools(serverToolConfig),
		"gemini":             genkitplugins.StartGoogleAIBuiltIns,
		"kimi-chat":          startKimi,
	}, "github.com/anthropics/anthropic-sdk-go"))
}

// The Kimi plugin reads its endpoint from option.WithBaseURL, applied after its defaults.
func startKimi(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	plugin := &kimi.Kimi{APIKey: c.APIKey, Opts: []option.RequestOption{option.WithBaseURL(c.BaseURL), option.WithMaxRetries(0)}}
	g := genkit.Init(ctx, genkit.WithPlugins(plugin))
	return g, ai.WithModelName("kimi/" + c.Model), nil
}

// serverToolConfig is the Anthropic plugin's config with the recorded server tools, each given as
// the request wrote it (param.Override, the SDK's way to send a value as is): the plugin sends the
// config's tools and then the application's.
func serverToolConfig(maxTokens int64, serverTools []map[string]any) any {
	config := &sdk.MessageNewParams{MaxTokens: maxTokens}
	for _, tool := range serverTools {
		raw, err := json.Marshal(tool)
		if err != nil {
			continue
		}
		config.Tools = append(config.Tools, param.Override[sdk.ToolUnionParam](json.RawMessage(raw)))
	}
	return config
}
