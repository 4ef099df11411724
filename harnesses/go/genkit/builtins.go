package genkitharness

import (
	"fmt"
	"sort"
	"strings"

	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// GeminiBuiltIns are the Gemini built-in tools the recorded request declared (codeExecution,
// googleSearch, ...): the entries of its tools that declare no functions, as the request wrote them,
// for the googlegenai plugin's config (a genai.GenerateContentConfig, whose Tools take them).
func GeminiBuiltIns(c *harnesskit.Case) []any {
	var builtIns []any
	for _, recorded := range c.RecordedTools {
		if _, functions := recorded["functionDeclarations"]; functions {
			continue
		}
		if _, functions := recorded["function_declarations"]; functions {
			continue
		}
		builtIns = append(builtIns, recorded)
	}
	return builtIns
}

// GeminiConfig is the googlegenai config that declares the case's built-in tools (nil when it has
// none). keepsBuiltIns says whether the version's plugin keeps the config's tools beside those of
// ai.WithTools (v1.3.0 on: toGeminiRequest merges them, mergeTools); before, toGeminiRequest
// assigns GenerateContentConfig.Tools the declarations of ai.WithTools, so a built-in beside the
// application's tools cannot be declared.
func GeminiConfig(c *harnesskit.Case, keepsBuiltIns bool) (map[string]any, error) {
	builtIns := GeminiBuiltIns(c)
	if len(builtIns) == 0 {
		return nil, nil
	}
	if !keepsBuiltIns && len(c.Tools) > 0 {
		return nil, harnesskit.Skip{Reason: fmt.Sprintf("this Genkit Go version's googlegenai plugin replaces the config's "+
			"GenerateContentConfig.Tools with the declarations of ai.WithTools (toGeminiRequest, plugins/googlegenai/gemini.go): "+
			"the built-in %s cannot be declared beside the application's tools", keyNames(builtIns))}
	}
	return map[string]any{"tools": builtIns}, nil
}

func keyNames(tools []any) string {
	var names []string
	for _, t := range tools {
		if m, ok := t.(map[string]any); ok {
			for key := range m {
				names = append(names, key)
			}
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
