module example.com/example-harness

go 1.22

require github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit v0.1.0
