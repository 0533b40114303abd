// MaxSpotPrecedence: the highest precedence among live spot sessions ("top of spot" slots above it).
// Params: $spot_geneses (genesis kinds whose default class is spot). Returns: one row {max: int or null}.
MATCH (s:Session)
WHERE s.status <> 'archived'
  AND coalesce(s.scheduling_class, CASE WHEN s.genesis IN $spot_geneses THEN 'spot' ELSE 'priority' END) = 'spot'
RETURN max(s.precedence) AS max
