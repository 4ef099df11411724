module github.com/toolcall-conformance/toolcall-conformance/harnesses/go/go-openai

go 1.26.0

require (
	github.com/sashabaranov/go-openai v1.43.0
	github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit v0.0.0
)

replace github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit => ../kit
