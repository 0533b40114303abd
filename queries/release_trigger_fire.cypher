// ReleaseTriggerFire: remove a fire's mark made with $token, so the fire can happen again.
// Params: $key, $token. Returns: nothing.
MATCH (f:TriggerFire {key: $key, token: $token})
DELETE f
