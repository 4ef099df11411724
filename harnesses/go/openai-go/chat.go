package main

import (
	"context"
	"errors"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	harnesskit "github.com/toolcall-conformance/toolcall-conformance/harnesses/go/kit"
)

// chatLoop is the function-calling guide's loop: the assistant message goes back as returned
// (ChatCompletionMessage.ToParam), then one tool message per call under the call's id. A stream
// is folded by the SDK's ChatCompletionAccumulator, as its streaming example shows. A restored
// conversation is the saved message list decoded into the SDK's ChatCompletionMessageParamUnion;
// each run of a session appends its user message to the same list and runs the loop on it.
func chatLoop(ctx context.Context, client *openai.Client, c *harnesskit.Case) (string, error) {
	messages, err := harnesskit.WireHistory[openai.ChatCompletionMessageParamUnion](c, "openai-go", chatAPIs...)
	if err != nil {
		return "", err
	}
	params := openai.ChatCompletionNewParams{Model: c.Model, Messages: messages, Tools: chatTools(c)}
	opts := bodyOptions(c, "messages")
	answer := ""
	for _, prompt := range c.RunPrompts() {
		if prompt != nil {
			params.Messages = append(params.Messages, openai.UserMessage(*prompt))
		}
		if answer, err = chatRun(ctx, client, c, &params, opts); err != nil {
			return "", err
		}
	}
	return answer, nil
}

// chatRun is one run of the loop on params.Messages, which it extends with what it sends.
func chatRun(ctx context.Context, client *openai.Client, c *harnesskit.Case, params *openai.ChatCompletionNewParams, opts []option.RequestOption) (string, error) {
	for turn := 0; turn < maxTurns; turn++ {
		message, err := chatTurn(ctx, client, c, *params, opts)
		if err != nil {
			return "", err
		}
		if len(message.ToolCalls) == 0 {
			params.Messages = append(params.Messages, message.ToParam())
			return message.Content, nil
		}
		params.Messages = append(params.Messages, message.ToParam())
		for _, call := range message.ToolCalls {
			output, err := chatToolOutput(ctx, c, call)
			if err != nil {
				return "", err
			}
			params.Messages = append(params.Messages, openai.ToolMessage(output, call.ID))
		}
	}
	return "", tooManyTurns()
}

func chatTurn(ctx context.Context, client *openai.Client, c *harnesskit.Case, params openai.ChatCompletionNewParams, opts []option.RequestOption) (openai.ChatCompletionMessage, error) {
	if !c.Stream {
		completion, err := client.Chat.Completions.New(ctx, params, opts...)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		if len(completion.Choices) == 0 {
			return openai.ChatCompletionMessage{}, errors.New("the completion has no choices")
		}
		return completion.Choices[0].Message, nil
	}
	stream := client.Chat.Completions.NewStreaming(ctx, params, opts...)
	defer stream.Close()
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		return openai.ChatCompletionMessage{}, err
	}
	if len(acc.Choices) == 0 {
		return openai.ChatCompletionMessage{}, errors.New("the accumulated stream has no choices")
	}
	return acc.Choices[0].Message, nil
}

func chatTools(c *harnesskit.Case) []openai.ChatCompletionToolUnionParam {
	var tools []openai.ChatCompletionToolUnionParam
	for _, t := range c.Tools {
		if t.Type == "custom" {
			tools = append(tools, openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{
				Name: t.Name, Description: openai.String(t.Description),
			}))
			continue
		}
		tools = append(tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: t.Parameters,
		}))
	}
	return tools
}

func chatToolOutput(ctx context.Context, c *harnesskit.Case, call openai.ChatCompletionMessageToolCallUnion) (string, error) {
	// The union's own fields, not AsFunction/AsCustom: those decode the union's raw JSON, which the
	// SDK's ChatCompletionAccumulator does not keep ("The ChatCompletion field JSON does not get
	// accumulated"), so a streamed call read through them can come back with no name.
	if call.Type == "custom" {
		return c.CallTool(ctx, call.Custom.Name, map[string]any{"input": call.Custom.Input}, call.ID)
	}
	return c.CallTool(ctx, call.Function.Name, arguments(call.Function.Arguments), call.ID)
}
