package harnesskit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serveLines(t *testing.T, run RunFunc, lines ...string) []map[string]any {
	t.Helper()
	var out bytes.Buffer
	impl := Implementation{Name: "kit-test", Version: "1.2.3", APIs: []string{"openai-chat"},
		Libraries: map[string]string{"lib": "0.1.0"}, Unsupported: map[string]string{"gemini": "no plugin"}}
	if err := ServeIO(context.Background(), impl, run, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out); err != nil {
		t.Fatalf("ServeIO: %v", err)
	}
	var answers []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("an answer that is not one JSON object per line: %q", line)
		}
		answers = append(answers, m)
	}
	return answers
}

func runLine(seq int, c map[string]any) string {
	data, _ := json.Marshal(map[string]any{"cmd": "run", "seq": seq, "case": c})
	return string(data)
}

func TestStartedDescribesTheImplementation(t *testing.T) {
	answers := serveLines(t, nil, `{"cmd": "start", "version": 1}`, `{"cmd": "stop"}`)
	if len(answers) != 1 {
		t.Fatalf("want one answer, got %v", answers)
	}
	impl := answers[0]["implementation"].(map[string]any)
	if answers[0]["version"] != float64(1) || impl["name"] != "kit-test" || impl["language"] != "go" || impl["version"] != "1.2.3" {
		t.Fatalf("started: %v", answers[0])
	}
	libraries := impl["libraries"].(map[string]any)
	if !strings.HasPrefix(libraries["go"].(string), "go") || libraries["lib"] != "0.1.0" {
		t.Fatalf("libraries: %v", libraries)
	}
	if impl["unsupported"].(map[string]any)["gemini"] != "no plugin" {
		t.Fatalf("unsupported: %v", impl["unsupported"])
	}
}

func TestRunAnswersOkSkippedErroredAndRecoversPanics(t *testing.T) {
	run := func(ctx context.Context, c *Case) (string, error) {
		switch c.Prompt {
		case "ok":
			return "done " + c.Model + " " + c.Tools[0].Name + " " + c.Settings.Headers["anthropic-version"], nil
		case "skip":
			return "", Skip{Reason: "no custom tools"}
		case "skip-ptr":
			return "", &Skip{Reason: "pointer"}
		case "panic":
			var m map[string]int
			m["x"] = 1
		}
		return "", errors.New("boom")
	}
	base := func(prompt string) map[string]any {
		return map[string]any{"id": "x/y", "api": "openai-chat", "base_url": "http://127.0.0.1:1/v1", "api_key": "k",
			"model": "m", "prompt": prompt, "stream": false, "tools_url": "http://127.0.0.1:1/t",
			"tools": []any{map[string]any{"name": "get_weather", "parameters": map[string]any{"type": "object"}}},
			"settings": map[string]any{"body": map[string]any{}, "headers": map[string]any{"anthropic-version": "2023-06-01"},
				"query": map[string]any{}, "api_version": nil}}
	}
	answers := serveLines(t, run, runLine(1, base("ok")), runLine(2, base("skip")), runLine(3, base("skip-ptr")),
		runLine(4, base("fail")), runLine(5, base("panic")))
	if len(answers) != 5 {
		t.Fatalf("want five answers, got %v", answers)
	}
	if answers[0]["seq"] != float64(1) || answers[0]["ok"] != true || answers[0]["output"] != "done m get_weather 2023-06-01" {
		t.Errorf("ok: %v", answers[0])
	}
	if answers[1]["skipped"] != "no custom tools" || answers[2]["skipped"] != "pointer" {
		t.Errorf("skipped: %v %v", answers[1], answers[2])
	}
	if answers[3]["errored"].(map[string]any)["message"] != "boom" {
		t.Errorf("errored: %v", answers[3])
	}
	if e := answers[4]["errored"].(map[string]any); !strings.HasPrefix(e["message"].(string), "panic:") || e["detail"] == "" || answers[4]["seq"] != float64(5) {
		t.Errorf("panic: %v", answers[4])
	}
	for _, a := range answers {
		forms := 0
		for _, k := range []string{"ok", "skipped", "errored"} {
			if _, ok := a[k]; ok {
				forms++
			}
		}
		if forms != 1 {
			t.Errorf("an answer with %d forms: %v", forms, a)
		}
	}
}

func TestUnknownCommandsAreIgnored(t *testing.T) {
	run := func(ctx context.Context, c *Case) (string, error) { return "done", nil }
	answers := serveLines(t, run, `{"cmd": "start", "version": 1}`, `{"cmd": "ping", "seq": 7}`, `null`, `{}`,
		runLine(1, map[string]any{"id": "x"}), `{"cmd": "stop"}`)
	if len(answers) != 2 || answers[1]["seq"] != float64(1) || answers[1]["ok"] != true {
		t.Fatalf("want started and the run's answer, got %v", answers)
	}
}

func TestEmptyOutputIsStillOk(t *testing.T) {
	answers := serveLines(t, func(context.Context, *Case) (string, error) { return "", nil }, runLine(1, map[string]any{"prompt": "x"}))
	if answers[0]["ok"] != true || answers[0]["output"] != "" {
		t.Fatalf("empty output: %v", answers[0])
	}
}

func TestLongRunLineIsRead(t *testing.T) {
	long := strings.Repeat("a", 3<<20)
	answers := serveLines(t, func(_ context.Context, c *Case) (string, error) { return c.Tools[0].Description[:3], nil },
		runLine(1, map[string]any{"tools": []any{map[string]any{"name": "t", "description": long}}}))
	if answers[0]["output"] != "aaa" {
		t.Fatalf("a long line: %v", answers[0])
	}
}

func TestEndOfInputStops(t *testing.T) {
	if answers := serveLines(t, nil, `{"cmd": "start", "version": 1}`); len(answers) != 1 {
		t.Fatalf("want the started answer then a clean stop, got %v", answers)
	}
}

func TestCallToolPostsTheCallAndReturnsItsOutput(t *testing.T) {
	var got map[string]any
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &got)
		if got["name"] == "missing" {
			http.Error(w, `{"error": "no such tool"}`, http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`{"output": "{\"temp_c\": 18}"}`))
	}))
	defer server.Close()
	c := &Case{ToolsURL: server.URL}
	output, err := c.CallTool(context.Background(), "get_weather", map[string]any{"city": "Paris"}, "call_1")
	if err != nil || output != `{"temp_c": 18}` {
		t.Fatalf("CallTool: %q %v", output, err)
	}
	if got["name"] != "get_weather" || got["call_id"] != "call_1" || got["arguments"].(map[string]any)["city"] != "Paris" {
		t.Fatalf("the POSTed toolCall: %v", got)
	}
	if _, err := c.CallTool(context.Background(), "get_weather", json.RawMessage(`{"city":"Tokyo"}`), ""); err != nil || got["arguments"] != `{"city":"Tokyo"}` || got["call_id"] != nil {
		t.Fatalf("raw arguments and no id: %v %v", got, err)
	}
	if _, err := c.CallTool(context.Background(), "missing", map[string]any{}, ""); err == nil || !strings.Contains(err.Error(), "HTTP 404") {
		t.Fatalf("a refused call must be an error naming the status: %v", err)
	}
}

// Every field of the protocol's case reaches the harness: the server tools and allowed callers a
// request must declare, a restored history (neutral and wire form), the session's runs.
func TestRunCaseCarriesEveryProtocolField(t *testing.T) {
	line := `{"cmd":"run","seq":1,"case":{"id":"x","api":"anthropic-messages","base_url":"http://127.0.0.1:1","api_key":"k",` +
		`"model":"m","prompt":"p","stream":false,"tools_url":"http://127.0.0.1:1/t",` +
		`"tools":[{"name":"f","parameters":{"type":"object"},"allowed_callers":["code_execution_20250825"]}],` +
		`"server_tools":[{"type":"code_execution_20250825","name":"code_execution"}],` +
		`"history":[{"role":"user","parts":[{"type":"text","text":"p"}]}],"history_api":"gemini",` +
		`"history_wire":[{"role":"user","parts":[{"text":"p"}]}],"runs":[null,"next"],` +
		`"interrupted":[{"name":"f","arguments":{"a":1}}],` +
		`"legs":[{"api":"openai-chat","model":"gpt","steps":2,"base_url":"http://127.0.0.1:2","tools_url":"http://127.0.0.1:2/t",` +
		`"stream":true,"recorded_tools":[{"type":"function"}],"settings":{"body":{"max_tokens":9}}}]}}`
	var got *Case
	serveLines(t, func(ctx context.Context, c *Case) (string, error) { got = c; return "", nil }, line)
	if got == nil || len(got.Tools) != 1 || len(got.Tools[0].AllowedCallers) != 1 || len(got.ServerTools) != 1 {
		t.Fatalf("tools: %+v", got)
	}
	if len(got.History) != 1 || got.History[0].Role != "user" || got.HistoryAPI == nil || *got.HistoryAPI != "gemini" || len(got.HistoryWire) != 1 {
		t.Fatalf("history: %+v", got)
	}
	runs := got.RunPrompts()
	if len(runs) != 2 || runs[0] != nil || *runs[1] != "next" || got.Interrupted[0].Name != "f" {
		t.Fatalf("runs: %+v", got)
	}
	if len(got.Legs) != 1 || got.Legs[0].Steps != 2 || !got.Legs[0].Stream || got.Legs[0].Settings.Body["max_tokens"] != float64(9) {
		t.Fatalf("legs: %+v", got.Legs)
	}
	leg := got.OnLeg(got.Legs[0])
	if leg.API != "openai-chat" || leg.BaseURL != "http://127.0.0.1:2" || leg.ToolsURL != "http://127.0.0.1:2/t" ||
		leg.History != nil || leg.Legs != nil || leg.Prompt != "p" || len(leg.RunPrompts()) != 1 || got.API != "anthropic-messages" {
		t.Fatalf("the case on its leg: %+v", leg)
	}
	if plain := (&Case{Prompt: "hi"}).RunPrompts(); len(plain) != 1 || *plain[0] != "hi" {
		t.Fatalf("a case without runs is one run of its prompt: %v", plain)
	}
}

func TestCallToolOfACutOffRunIsRunInterrupted(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"interrupted": "the run was cut off before f answered"}`))
	}))
	defer server.Close()
	_, err := (&Case{ToolsURL: server.URL}).CallTool(context.Background(), "f", map[string]any{}, "")
	var cut *RunInterrupted
	if !errors.As(err, &cut) || !strings.Contains(cut.Reason, "cut off") {
		t.Fatalf("a cut-off call must be RunInterrupted: %v", err)
	}
}

func TestWireHistoryDecodesTheSavedMessagesOfTheLibrarysOwnAPI(t *testing.T) {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	origin := "openai-chat"
	c := &Case{API: "kimi-chat", HistoryAPI: &origin, History: []Message{{Role: "user"}},
		HistoryWire: []json.RawMessage{json.RawMessage(`{"role": "user", "content": "hi"}`)}}
	got, err := WireHistory[message](c, "sdk", "openai-chat", "kimi-chat")
	if err != nil || len(got) != 1 || got[0] != (message{Role: "user", Content: "hi"}) {
		t.Fatalf("WireHistory: %v, %v", got, err)
	}
	if got, err := WireHistory[message](&Case{API: "openai-chat"}, "sdk", "openai-chat"); err != nil || len(got) != 0 {
		t.Fatalf("a new conversation restores nothing: %v, %v", got, err)
	}
	c.HistoryWire = []json.RawMessage{json.RawMessage(`[1]`)}
	if _, err := WireHistory[message](c, "sdk", "openai-chat"); err == nil || !strings.Contains(err.Error(), "history_wire[0]") {
		t.Fatalf("an undecodable message is located: %v", err)
	}
}

func TestWireHistorySkipsWhatARawSDKCannotTake(t *testing.T) {
	origin := "gemini"
	var skip Skip
	_, err := WireHistory[map[string]any](&Case{API: "openai-chat", HistoryAPI: &origin, History: []Message{{Role: "user"}}}, "sdk", "openai-chat")
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "one saved from gemini is the application's to translate") {
		t.Fatalf("another API's history: %v", err)
	}
	_, err = WireHistory[map[string]any](&Case{API: "openai-chat", Interrupted: []InterruptedCall{{Name: "get_weather"}}}, "sdk", "openai-chat")
	if !errors.As(err, &skip) || !strings.Contains(skip.Reason, "cut off before its tool answered") {
		t.Fatalf("a cut-off run: %v", err)
	}
}
