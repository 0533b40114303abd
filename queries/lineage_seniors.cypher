// LineageSeniors: every spawn parent and uncle of the given sessions.
// Params: $ids. Returns: rows {from: senior id, to: junior id, kind: 'SPAWNED' | 'UNCLE_OF'}.
UNWIND $ids AS jid
MATCH (:Session {id: jid})<-[r:SPAWNED|UNCLE_OF]-(s:Session)
RETURN s.id AS from, jid AS to, type(r) AS kind
