// Package anthropic starts Genkit Go's Anthropic plugin for a case: shared by the harnesses of the
// versions that have the plugin (v1.3.0 and later), apart from the shared plugins module, which
// builds against v0.7.0, before the plugin existed.
package anthropic

import (
	"context"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/firebase/genkit/go/plugins/anthropic"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// Start initialises Genkit with the Anthropic plugin pointed at the case's replay. The plugin
// refuses a request without max_tokens ("maxTokens not set"), as the Messages API does; its config
// is the SDK's MessageNewParams, given here as the recording's value.
func Start(ctx context.Context, c *harnesskit.Case) (*genkit.Genkit, ai.CommonGenOption, error) {
	g := genkit.Init(ctx, genkit.WithPlugins(&anthropic.Anthropic{APIKey: c.APIKey, BaseURL: c.BaseURL}))
	maxTokens, ok := c.Settings.Body["max_tokens"]
	if !ok {
		maxTokens = 1024
	}
	config := map[string]any{"max_tokens": maxTokens}
	return g, ai.WithModel(ai.NewModelRef("anthropic/"+c.Model, config)), nil
}
