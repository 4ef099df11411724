// The Genkit Go v1.12.0 harness: the shared loop with the plugin setup of v0.7.0 and later
// (harnesses/go/genkit/plugins), the Anthropic plugin, which Genkit Go has from v1.3.0
// (harnesses/go/genkit/anthropic), and compat_oai's Kimi plugin, which replaces the generic
// OpenAI-compatible one for Kimi.
package main

import (
	"context"

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
		"anthropic-messages": genkitanthropic.Start,
		"kimi-chat":          startKimi,
	}, "github.com/anthropics/anthropic-sdk-go"))
}

// The Kimi plugin reads its endpoint from option.WithBaseURL, applied after its defaults.
func startKimi(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	plugin := &kimi.Kimi{APIKey: c.APIKey, Opts: []option.RequestOption{option.WithBaseURL(c.BaseURL), option.WithMaxRetries(0)}}
	g := genkit.Init(ctx, genkit.WithPlugins(plugin))
	return g, ai.WithModelName("kimi/" + c.Model), nil
}
