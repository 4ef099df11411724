package genkitharness

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/firebase/genkit/go/ai"
)

// callOrder makes a turn's tools answer in the order the model called them.
//
// Genkit runs a turn's tools concurrently and appends each result to the tool message as its tool
// returns (ai/generate.go, handleToolRequests), so the results' order is the order in which the
// tools finish. An application's tools finish in whatever order their work takes; the replay's
// answer the same for every call, so the order would be the scheduler's and a run's verdict could
// change from one run to the next. The harness fixes it to the calls' order: a middleware notes the
// model's tool requests, and each tool waits until the calls before it have been answered.
//
// Before v1.12.0 a result is appended when its goroutine sends it, after the tool function has
// returned, so the next tool waits a moment (settle) before it answers; v1.10.0 on put the results in
// the calls' order itself (ai/generate.go, "Emit tool responses in the order their requests appear").
type callOrder struct {
	mu    sync.Mutex
	done  *sync.Cond
	calls []string // each tool request of the latest model response, by name and input
	taken []bool
	next  int
}

// settle is how long a tool waits, once the call before it has answered, for that answer to reach
// Genkit's result channel: far longer than the few steps between them, short beside a case's timeout.
const settle = 25 * time.Millisecond

func newCallOrder() *callOrder {
	o := &callOrder{}
	o.done = sync.NewCond(&o.mu)
	return o
}

func callKey(name string, input any) string {
	data, _ := json.Marshal(input) // maps are encoded with sorted keys
	return name + "\x00" + string(data)
}

// middleware notes the tool requests of each model response, in order.
func (o *callOrder) middleware(next ai.ModelFunc) ai.ModelFunc {
	return func(ctx context.Context, req *ai.ModelRequest, cb func(context.Context, *ai.ModelResponseChunk) error) (*ai.ModelResponse, error) {
		resp, err := next(ctx, req, cb)
		if err != nil || resp == nil || resp.Message == nil {
			return resp, err
		}
		var calls []string
		for _, part := range resp.Message.Content {
			if part.IsToolRequest() {
				calls = append(calls, callKey(part.ToolRequest.Name, part.ToolRequest.Input))
			}
		}
		o.mu.Lock()
		o.calls, o.taken, o.next = calls, make([]bool, len(calls)), 0
		o.done.Broadcast()
		o.mu.Unlock()
		return resp, nil
	}
}

// run answers one call once the calls before it are answered; a call it cannot place (not among
// the noted requests) runs at once.
func (o *callOrder) run(name string, input any, answer func() (any, error)) (any, error) {
	key := callKey(name, input)
	o.mu.Lock()
	turn := -1
	for i, k := range o.calls {
		if k == key && !o.taken[i] {
			turn = i
			o.taken[i] = true
			break
		}
	}
	if turn < 0 {
		o.mu.Unlock()
		return answer()
	}
	for o.next != turn {
		o.done.Wait()
	}
	o.mu.Unlock()
	if turn > 0 {
		// The previous call's result reaches Genkit only after its tool function has returned (the
		// tool's span ends, the part is cloned, the result is sent on a channel); answering at once
		// could overtake it.
		time.Sleep(settle)
	}
	output, err := answer()
	o.mu.Lock()
	o.next++
	o.done.Broadcast()
	o.mu.Unlock()
	return output, err
}
