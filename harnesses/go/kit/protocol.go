// Package harnesskit is the harness protocol of docs/harness.md for Go: it reads the suite's
// commands on stdin, answers on stdout, and hands each case to the harness's function. A Go
// harness is then only the library's own tool loop.
package harnesskit

import "encoding/json"

// Protocol is the harness protocol version this kit speaks.
const Protocol = 1

// Tool is one client-side tool the case declares.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Type        string         `json:"type,omitempty"` // "function" (or empty) or "custom"
	Parameters  map[string]any `json:"parameters,omitempty"`
	// AllowedCallers names who besides the model may call the tool (Anthropic programmatic tool
	// calling): declare it as given.
	AllowedCallers []string `json:"allowed_callers,omitempty"`
}

// Message is one message of a restored history in the neutral model (docs/adapters.md): a role and
// its parts (text, tool_call, tool_result), kept as the suite sent them.
type Message struct {
	Role  string           `json:"role"`
	Parts []map[string]any `json:"parts"`
	Extra map[string]any   `json:"extra,omitempty"`
}

// InterruptedCall is a call whose run the case cuts off before the tool answers.
type InterruptedCall struct {
	Name      string `json:"name"`
	Arguments any    `json:"arguments"`
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
	ID      string `json:"id"`
	API     string `json:"api"`
	BaseURL string `json:"base_url"`
	APIKey  string `json:"api_key"`
	Model   string `json:"model"`
	Prompt  string `json:"prompt"`
	Stream  bool   `json:"stream"`
	Tools   []Tool `json:"tools"`
	// ServerTools are the provider's own tools the scenario's responses use, as a request declares them.
	ServerTools   []map[string]any `json:"server_tools"`
	RecordedTools []map[string]any `json:"recorded_tools"`
	Settings      Settings         `json:"settings"`
	ToolsURL      string           `json:"tools_url"`
	// History is a saved conversation to continue, the prompt first (empty for a new one), in the
	// neutral model; HistoryWire the same in HistoryAPI's wire form (its request messages).
	History     []Message         `json:"history"`
	HistoryAPI  *string           `json:"history_api"`
	HistoryWire []json.RawMessage `json:"history_wire"`
	// Runs holds the user message that begins each run of the session, in order; nil: the run
	// continues History without one. Use RunPrompts, which gives a case without runs its prompt.
	Runs        []*string         `json:"runs"`
	Interrupted []InterruptedCall `json:"interrupted"`
	// Legs are the first legs of a hand-off across providers (a harness that continues "handoffs"):
	// run the prompt on each leg's API for its Steps, then continue the same conversation here.
	Legs []Leg `json:"legs"`
}

// Leg is one first leg of a hand-off: where that API's turns are served, and for how many steps
// (model responses, each with calls the harness runs, sending nothing more there).
type Leg struct {
	API           string           `json:"api"`
	Model         string           `json:"model"`
	Steps         int              `json:"steps"`
	BaseURL       string           `json:"base_url"`
	ToolsURL      string           `json:"tools_url"`
	Stream        bool             `json:"stream"`
	RecordedTools []map[string]any `json:"recorded_tools"`
	Settings      Settings         `json:"settings"`
}

// OnLeg is the case as its first leg sees it: the leg's API, model, endpoints and recorded
// request, the prompt as a new conversation (no history, runs or legs of its own).
func (c *Case) OnLeg(leg Leg) *Case {
	onLeg := *c
	onLeg.API, onLeg.Model, onLeg.BaseURL, onLeg.ToolsURL = leg.API, leg.Model, leg.BaseURL, leg.ToolsURL
	onLeg.Stream, onLeg.RecordedTools, onLeg.Settings = leg.Stream, leg.RecordedTools, leg.Settings
	onLeg.ServerTools, onLeg.History, onLeg.HistoryAPI, onLeg.HistoryWire = nil, nil, nil, nil
	onLeg.Runs, onLeg.Interrupted, onLeg.Legs = nil, nil, nil
	return &onLeg
}

// RunPrompts is the user message of each run of the case's session (nil: continue the history).
func (c *Case) RunPrompts() []*string {
	if len(c.Runs) > 0 {
		return c.Runs
	}
	prompt := c.Prompt
	return []*string{&prompt}
}

// Implementation is who the harness is, for `started`: Name and Version name the matrix column.
type Implementation struct {
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	Homepage    string            `json:"homepage,omitempty"`
	Libraries   map[string]string `json:"libraries,omitempty"`
	APIs        []string          `json:"apis"`
	Unsupported map[string]string `json:"unsupported,omitempty"`
	// Continues says what the harness can be handed beyond a new conversation: "history",
	// "sessions", "handoffs".
	Continues []string `json:"continues,omitempty"`
}

// Skip, returned as the error of a run, answers `skipped` with its reason: the library cannot
// express the case.
type Skip struct{ Reason string }

func (s Skip) Error() string { return "skipped: " + s.Reason }
