// ClaimTriggerFire: mark one fire (a trigger condition and what it fired on) as taken. The
// uniqueness constraint on key makes a concurrent claim of the same fire wait for this one and
// then find the mark, so two pollers or a redelivered task never fire it twice.
// Params: $key, $token (this claim's own random token), $trigger_id, $at (datetime).
// Returns: one row {claimed} — true when this call made the mark.
MERGE (f:TriggerFire {key: $key})
  ON CREATE SET f.token = $token, f.trigger_id = $trigger_id, f.at = $at
RETURN f.token = $token AS claimed
