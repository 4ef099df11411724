module github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit

go 1.24

require (
	github.com/firebase/genkit/go v0.6.2
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit v0.0.0
)

replace github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit => ../kit
