// The Genkit Go v1.3.0 harness: the shared loop with the plugin setup of v0.7.0 and later
// (harnesses/go/genkit/plugins), and the Anthropic plugin, which Genkit Go has from v1.3.0.
package main

import (
	"context"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/anthropic"

	genkitharness "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit"
	genkitplugins "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/plugins"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

func main() {
	genkitharness.Main(genkitplugins.Backend(map[string]genkitharness.Start{"anthropic-messages": startAnthropic},
		"github.com/anthropics/anthropic-sdk-go"))
}

// The plugin refuses a request without max_tokens ("maxTokens not set"), as the Messages API does;
// its config is the SDK's MessageNewParams, given here as the recording's value.
func startAnthropic(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	g := genkit.Init(ctx, genkit.WithPlugins(&anthropic.Anthropic{APIKey: c.APIKey, BaseURL: c.BaseURL}))
	maxTokens, ok := c.Settings.Body["max_tokens"]
	if !ok {
		maxTokens = 1024
	}
	config := map[string]any{"max_tokens": maxTokens}
	return g, ai.WithModel(ai.NewModelRef("anthropic/"+c.Model, config)), nil
}
