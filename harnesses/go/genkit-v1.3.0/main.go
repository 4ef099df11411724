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

func startAnthropic(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	g := genkit.Init(ctx, genkit.WithPlugins(&anthropic.Anthropic{APIKey: c.APIKey, BaseURL: c.BaseURL}))
	return g, ai.WithModelName("anthropic/" + c.Model), nil
}
