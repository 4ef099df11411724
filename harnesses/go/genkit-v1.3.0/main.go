// The Genkit Go v1.3.0 harness: the shared loop with the plugin setup of v0.7.0 and later
// (harnesses/go/genkit/plugins), and the Anthropic plugin, which Genkit Go has from v1.3.0
// (harnesses/go/genkit/anthropic).
package main

import (
	genkitharness "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit"
	genkitanthropic "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/anthropic"
	genkitplugins "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/plugins"
)

func main() {
	genkitharness.Main(genkitplugins.Backend(map[string]genkitharness.Start{
		"anthropic-messages": genkitanthropic.Start,
		"gemini":             genkitplugins.StartGoogleAIBuiltIns,
	},
		"github.com/anthropics/anthropic-sdk-go"))
}
