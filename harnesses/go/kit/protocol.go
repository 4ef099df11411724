// Package harnesskit is the harness protocol of docs/harness.md for Go: it reads the suite's
// commands on stdin, answers on stdout, and hands each case to the harness's function. A Go
// harness is then only the library's own tool loop.
package harnesskit

// Protocol is the harness protocol version this kit speaks.
const Protocol = 1

// Tool is one client-side tool the case declares.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Type        string         `json:"type,omitempty"` // "function" (or empty) or "custom"
	Parameters  map[string]any `json:"parameters,omitempty"`
}

// Settings is the rest of the first recorded request, for what the library lets a harness set.
type Settings struct {
	Body       map[string]any    `json:"body"`
	Headers    map[string]string `json:"headers"`
	Query      map[string]string `json:"query"`
	APIVersion string            `json:"api_version"`
}

// Case is the `case` of a `run` command.
type Case struct {
	ID            string           `json:"id"`
	API           string           `json:"api"`
	BaseURL       string           `json:"base_url"`
	APIKey        string           `json:"api_key"`
	Model         string           `json:"model"`
	Prompt        string           `json:"prompt"`
	Stream        bool             `json:"stream"`
	Tools         []Tool           `json:"tools"`
	RecordedTools []map[string]any `json:"recorded_tools"`
	Settings      Settings         `json:"settings"`
	ToolsURL      string           `json:"tools_url"`
}

// Implementation is who the harness is, for `started`: Name and Version name the matrix column.
type Implementation struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	Homepage    string            `json:"homepage,omitempty"`
	Libraries   map[string]string `json:"libraries,omitempty"`
	APIs        []string          `json:"apis"`
	Unsupported map[string]string `json:"unsupported,omitempty"`
}

// Skip, returned as the error of a run, answers `skipped` with its reason: the library cannot
// express the case.
type Skip struct{ Reason string }

func (s Skip) Error() string { return "skipped: " + s.Reason }
