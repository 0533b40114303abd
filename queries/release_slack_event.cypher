// ReleaseSlackEvent: removes the mark a claim made (and only that claim's), so Slack's retry of
// an event that failed to deliver is delivered.
// Params: $event_id, $token. Returns: nothing.
MATCH (e:SlackEvent {event_id: $event_id, token: $token})
DELETE e
