package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/zimmerhq/zimmer/jobs/tasks"
	"github.com/zimmerhq/zimmer/trigger"
)

// FireSlackTriggers queues a fire for every enabled slack condition the message matches (the
// signed events endpoint calls it for each message and mention). The fire's key is the
// condition and Slack's event id, so a retried event queues nothing twice. It reports how many
// fires it queued.
func (s *Service) FireSlackTriggers(ctx context.Context, m SlackMessage, mention bool) (int, error) {
	list, err := s.store.EnabledTriggersOfType(ctx, trigger.TypeSlack)
	if err != nil {
		return 0, err
	}
	ev := trigger.SlackEvent{UserID: m.UserID, Channel: m.Channel, ChannelType: m.ChannelType, TS: m.TS, ThreadTS: m.ThreadTS, Mention: mention}
	id := m.EventID
	if id == "" {
		id = m.Channel + ":" + m.TS
	}
	queued := 0
	var errs []error
	for _, t := range list {
		for _, c := range t.Conditions {
			if !trigger.SlackMatches(c, ev) {
				continue
			}
			vars := map[string]string{"text": m.Text, "author": m.UserID, "channel": m.Channel, "link": m.Permalink,
				"event": strings.TrimSpace(c.Str("event_type") + " " + m.ChannelType)}
			err := s.queue.EnqueueFireTrigger(ctx, tasks.FireTrigger{TriggerID: t.ID, ConditionID: c.ID, Key: fmt.Sprintf("slack:%d:%s", c.ID, id), Vars: vars})
			if err != nil {
				errs = append(errs, err)
				continue
			}
			queued++
		}
	}
	return queued, errors.Join(errs...)
}
