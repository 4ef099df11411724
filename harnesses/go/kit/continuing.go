package harnesskit

import (
	"encoding/json"
	"fmt"
	"slices"
)

// WireHistory is the case's saved conversation as a raw SDK restores it: HistoryWire's request
// messages, each decoded into the SDK's own message parameter type T, for an SDK whose API (one of
// apis) wrote them. An SDK keeps no conversation of its own, so what it cannot take is a skip that
// says so (library names it): a history saved in another API's wire form, which the application
// would have to translate, and a run cut off before its tool answered, whose message list the
// application would have to repair. A new conversation restores nothing.
func WireHistory[T any](c *Case, library string, apis ...string) ([]T, error) {
	if len(c.Interrupted) > 0 {
		return nil, Skip{Reason: library + " keeps no conversation of its own: a run cut off before its tool answered " +
			"leaves the application's message list to repair"}
	}
	if len(c.History) == 0 && len(c.HistoryWire) == 0 {
		return nil, nil
	}
	origin := ""
	if c.HistoryAPI != nil {
		origin = *c.HistoryAPI
	}
	if !slices.Contains(apis, origin) {
		return nil, Skip{Reason: fmt.Sprintf("%s takes a history in its own API's wire form only; one saved from %s "+
			"is the application's to translate", library, origin)}
	}
	messages := make([]T, 0, len(c.HistoryWire))
	for i, raw := range c.HistoryWire {
		var message T
		if err := json.Unmarshal(raw, &message); err != nil {
			return nil, fmt.Errorf("history_wire[%d] does not decode as %s's message: %w", i, library, err)
		}
		messages = append(messages, message)
	}
	return messages, nil
}
