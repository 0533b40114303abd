// LineageSeniors: every spawn parent and uncle of the given sessions, as one row (a single
// record costs far less over Bolt than one per link).
// Params: $ids. Returns: one row {links: [{from: senior id, to: junior id, kind: 'SPAWNED' | 'UNCLE_OF'}]}.
UNWIND $ids AS jid
MATCH (:Session {id: jid})<-[r:SPAWNED|UNCLE_OF]-(s:Session)
RETURN collect({from: s.id, to: jid, kind: type(r)}) AS links
