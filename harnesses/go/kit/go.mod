module github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit

go 1.22
