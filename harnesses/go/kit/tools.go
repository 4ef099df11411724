package harnesskit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

var toolClient = &http.Client{Timeout: 60 * time.Second}

// RunInterrupted is CallTool's error for a call the case cuts off before its tool answers: the run
// ends there, without a result, and the session's next run continues the conversation.
type RunInterrupted struct{ Reason string }

func (e *RunInterrupted) Error() string { return e.Reason }

// CallTool asks the replay server for the output of one tool call: a toolCall POSTed to the case's
// tools_url, answered by a toolOutput. arguments are what the library parsed (an object, or the
// JSON text); callID is the id as the library knows it (for the log), "" when it has none.
func (c *Case) CallTool(ctx context.Context, name string, arguments any, callID string) (string, error) {
	if raw, ok := arguments.(json.RawMessage); ok {
		arguments = string(raw)
	}
	body := map[string]any{"name": name, "arguments": arguments, "call_id": nil}
	if callID != "" {
		body["call_id"] = callID
	}
	data, err := json.Marshal(body)
	if err != nil {
		return "", fmt.Errorf("tool %s: arguments do not encode: %w", name, err)
	}
	request, err := http.NewRequestWithContext(ctx, http.MethodPost, c.ToolsURL, bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	request.Header.Set("content-type", "application/json")
	response, err := toolClient.Do(request)
	if err != nil {
		return "", fmt.Errorf("tool %s: %w", name, err)
	}
	defer response.Body.Close()
	text, err := io.ReadAll(response.Body)
	if err != nil {
		return "", fmt.Errorf("tool %s: %w", name, err)
	}
	if response.StatusCode != http.StatusOK {
		return "", fmt.Errorf("tool %s: HTTP %d: %.300s", name, response.StatusCode, text)
	}
	var answer struct {
		Output      *string `json:"output"`
		Interrupted *string `json:"interrupted"`
	}
	if err := json.Unmarshal(text, &answer); err == nil && answer.Interrupted != nil {
		return "", &RunInterrupted{Reason: *answer.Interrupted}
	}
	if err := json.Unmarshal(text, &answer); err != nil || answer.Output == nil {
		return "", fmt.Errorf("tool %s: the tools endpoint answered %.300s", name, text)
	}
	return *answer.Output, nil
}
