module github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/anthropic

go 1.24.1

require (
	github.com/firebase/genkit/go v1.3.0
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit v0.0.0
)

replace github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit => ../../kit
