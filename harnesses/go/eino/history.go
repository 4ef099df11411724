package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/uuid"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// restoredMessages is a saved conversation as Eino keeps one: schema.Messages, provider-neutral,
// handed to the agent as its input, so a history begun on any provider is restored on the case's
// model. A call's id is its ToolCall.ID; each result is a tool message under its call's id and
// name, as the ToolsNode writes them.
func restoredMessages(c *harnesskit.Case) ([]*schema.Message, error) {
	var messages []*schema.Message
	names := map[string]string{}
	// A call saved without an id (Gemini's, before ids) is stored under the UUID Eino's Gemini model
	// mints as it reads the response (convFC), and its result, which comes in the same order, under
	// the same id.
	var minted []string
	for i, saved := range c.History {
		if saved.Role == "assistant" {
			minted = nil
		}
		answered := 0
		var text string
		var calls []schema.ToolCall
		var results []*schema.Message
		for _, part := range saved.Parts {
			kind, _ := part["type"].(string)
			callID, _ := part["call_id"].(string)
			name, _ := part["name"].(string)
			if executed, _ := part["provider_executed"].(bool); executed {
				return nil, harnesskit.Skip{Reason: "Eino's schema.Message has no call the provider ran itself; " +
					"a history holding one cannot be restored"}
			}
			switch kind {
			case "text":
				t, _ := part["text"].(string)
				text += t
			case "tool_call":
				if callID == "" {
					callID = uuid.NewString()
					minted = append(minted, callID)
				}
				names[callID] = name
				arguments, err := json.Marshal(part["arguments"])
				if err != nil {
					return nil, fmt.Errorf("history[%d]: %w", i, err)
				}
				calls = append(calls, schema.ToolCall{ID: callID, Type: "function",
					Function: schema.FunctionCall{Name: name, Arguments: string(arguments)}})
			case "tool_result":
				if callID == "" && answered < len(minted) {
					callID = minted[answered]
				}
				answered++
				if name == "" {
					name = names[callID]
				}
				output, ok := part["output"].(string)
				if !ok {
					raw, _ := json.Marshal(part["output"])
					output = string(raw)
				}
				results = append(results, schema.ToolMessage(output, callID, schema.WithToolName(name)))
			default:
				return nil, fmt.Errorf("history[%d]: a part of type %q", i, kind)
			}
		}
		switch saved.Role {
		case "user":
			messages = append(messages, schema.UserMessage(text))
		case "system":
			messages = append(messages, schema.SystemMessage(text))
		case "assistant":
			messages = append(messages, schema.AssistantMessage(text, calls))
		case "tool":
			messages = append(messages, results...)
		default:
			return nil, fmt.Errorf("history[%d]: a message of role %q", i, saved.Role)
		}
	}
	return messages, nil
}

// session plays the case's runs on one conversation: each run hands the react agent the
// conversation so far, the run's user message appended, and the messages the agent made in the
// run (react.WithMessageFuture, the agent's way of handing them out) continue it. A run cut off
// in a tool ends with the agent's error; what it made up to there is kept, as the future hands it.
func session(ctx context.Context, agent *react.Agent, c *harnesskit.Case, conversation []*schema.Message, cut *cutOff) (string, error) {
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			conversation = append(conversation, schema.UserMessage(*prompt))
		}
		option, future := react.WithMessageFuture()
		var err error
		if c.Stream {
			answer, err = streamed(ctx, agent, conversation, option)
		} else {
			var message *schema.Message
			if message, err = agent.Generate(ctx, conversation, option); err == nil {
				answer = message.Content
			}
		}
		// The ToolsNode reports a tool's error as text (NodeRunError), so the cut is known from the
		// tool; the future then ends on the same error, after the messages made before it.
		wasCut := cut.take()
		if err != nil && !wasCut {
			return "", err
		}
		made, ferr := madeInRun(future, c.Stream)
		if ferr != nil && !wasCut {
			return "", ferr
		}
		conversation = append(conversation, made...)
	}
	return answer, nil
}

func madeInRun(future react.MessageFuture, stream bool) ([]*schema.Message, error) {
	var made []*schema.Message
	if !stream {
		messages := future.GetMessages()
		for {
			message, ok, err := messages.Next()
			if err != nil || !ok {
				return made, err
			}
			made = append(made, message)
		}
	}
	streams := future.GetMessageStreams()
	for {
		reader, ok, err := streams.Next()
		if err != nil || !ok {
			return made, err
		}
		message, err := schema.ConcatMessageStream(reader)
		if err != nil && !errors.Is(err, io.EOF) {
			return made, err
		}
		made = append(made, message)
	}
}

// cutOff notes that a tool's run was cut off (RunInterrupted), for the session to go on after the
// agent's error.
type cutOff struct{ happened bool }

func (c *cutOff) note(err error) {
	var interrupted *harnesskit.RunInterrupted
	if errors.As(err, &interrupted) {
		c.happened = true
	}
}

func (c *cutOff) take() bool {
	happened := c.happened
	c.happened = false
	return happened
}

// handedOff runs the conversation's first legs, each on its own API's eino-ext model, and returns
// the messages to continue on the case's model (Eino's messages are the same for every model). A
// leg is its steps of the model with the case's tools bound (ToolCallingChatModel.WithTools), each
// step's calls answered by the tools as the ToolsNode answers them, and nothing sent after the last.
func handedOff(ctx context.Context, c *harnesskit.Case) ([]*schema.Message, error) {
	messages := []*schema.Message{schema.UserMessage(c.Prompt)}
	for _, leg := range c.Legs {
		onLeg := c.OnLeg(leg)
		chatModel, err := newModel(ctx, onLeg)
		if err != nil {
			return nil, err
		}
		tools, err := caseTools(onLeg, &cutOff{})
		if err != nil {
			return nil, err
		}
		var infos []*schema.ToolInfo
		for _, t := range tools {
			info, err := t.Info(ctx)
			if err != nil {
				return nil, err
			}
			infos = append(infos, info)
		}
		bound, err := chatModel.WithTools(infos)
		if err != nil {
			return nil, err
		}
		for step := 0; step < leg.Steps; step++ {
			message, err := generated(ctx, bound, messages, onLeg.Stream)
			if err != nil {
				return nil, err
			}
			messages = append(messages, message)
			if len(message.ToolCalls) == 0 {
				break
			}
			for _, call := range message.ToolCalls {
				output, err := onLeg.CallTool(ctx, call.Function.Name, call.Function.Arguments, call.ID)
				if err != nil {
					return nil, err
				}
				messages = append(messages, schema.ToolMessage(output, call.ID, schema.WithToolName(call.Function.Name)))
			}
		}
	}
	return messages, nil
}

func generated(ctx context.Context, chatModel model.ToolCallingChatModel, messages []*schema.Message, stream bool) (*schema.Message, error) {
	if !stream {
		return chatModel.Generate(ctx, messages)
	}
	reader, err := chatModel.Stream(ctx, messages)
	if err != nil {
		return nil, err
	}
	return schema.ConcatMessageStream(reader)
}
