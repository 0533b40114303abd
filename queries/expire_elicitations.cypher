// ExpireElicitations: mark every pending elicitation past its expiry expired.
// Params: $now. Returns: rows {e} of those expired.
MATCH (e:Elicitation {status: 'pending'})
WHERE e.expires_at <= $now
SET e.status = 'expired', e.responded_at = $now
RETURN e
