// ClaimSlackEvent: marks a Slack event id as seen. The uniqueness constraint on event_id makes a
// concurrent claim of the same id wait for this one and then find the mark, never make a second.
// Params: $event_id, $token (this claim's own random token), $at (datetime).
// Returns: one row {claimed} — true when this call made the mark.
MERGE (e:SlackEvent {event_id: $event_id})
  ON CREATE SET e.token = $token, e.seen_at = $at
RETURN e.token = $token AS claimed
