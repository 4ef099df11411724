module github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit/plugins

go 1.24

require (
	github.com/firebase/genkit/go v0.7.0
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit v0.0.0
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit v0.0.0
)

replace (
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/genkit => ../
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit => ../../kit
)
