// SessionProvenance: a session (by id) with its whole provenance in
// one statement — the bounded lineage walk of package lineage (the specification; a property
// test holds this statement to it), every human message said anywhere in the walked graph, the
// roster, and what get_session shows beside them (the head of its queue, its category) —
// so a read is one round trip.
//   origin: the spawn chain upward, at most $max_depth steps (one more is read to tell a cut
//     chain from a complete one).
//   up: breadth-first over spawn and uncle edges; a level that would pass $max_depth or
//     $max_nodes stalls the walk on its frontier. Anchors are the sessions found with no senior
//     at all, plus the stalled frontier.
//   down: breadth-first from the roots (origin first, then anchors by id), each level's unseen
//     juniors by id, admitted until $max_nodes, $max_depth levels deep. Juniors are ordered by
//     the junior_id every lineage edge carries, so no junior's property chain is read to order
//     them; a :WideSenior's juniors come in order from the (senior_id, junior_id) edge indexes,
//     the first $max_nodes + 1 of each kind, instead of all its thousands. (Every junior among
//     the level's first $max_nodes + 1 unseen ones is among the first $max_nodes + 1 of each
//     senior and kind that reaches it.) Which node a junior is drawn under follows from the
//     depths, parents and uncles returned (lineage.Hierarchy.Complete), so the walk does not
//     compute it; only the asked-for session, appended when the bounds cut it off, comes with
//     its own.
// The top-k per level is a constant ($max_nodes + 1), sliced to what can still be admitted.
// Params: $id (integer), $max_depth, $max_nodes, $pending (the pending status), $queue_preview
// (how many pending messages to return; 0 for none).
// Returns: zero rows when no session has the id, else one row {s, origin, roots, truncated,
// nodes: [[id, title, agent_root, status, genesis, scheduling_class, parent_id, uncle_ids (in no
// order), depth, under (null but for an appended asked-for session)]] in walk order (lists, as
// as_of_nodes' columns, so no node carries its keys over the wire; the seniors' ids come off the
// edges, so no senior's property chain is read), messages: [{id,
// session_id, author, channel, content, occurred_at, entry_point, slack_user_id, slack_channel,
// slack_permalink}] chronological, users: [{key,
// display_name, email, slack_user_ids, notes, created_at, updated_at}] by key, pending_total,
// pending: the first $queue_preview pending message nodes by position, category: the category
// node, null when the session has no category or it is gone, status_summary: null when none
// was ever asked for, else {summary, error, state, generating, requested_at, generated_at,
// covered_bytes}}.
MATCH (s:Session {id: $id})
OPTIONAL MATCH chain = (:Session)-[:SPAWNED*1..9]->(s)
WITH s, chain ORDER BY length(chain) DESC LIMIT 1
WITH s, CASE WHEN chain IS NULL THEN [s] ELSE reverse(nodes(chain)) END AS chain
WITH s, chain[CASE WHEN size(chain) - 1 < $max_depth THEN size(chain) - 1 ELSE $max_depth END] AS origin,
     size(chain) > $max_depth + 1 AS chainCut,
     reduce(st = {f: [s], seen: [s], top: [], stalled: [], done: false}, depth IN range(1, $max_depth + 1) |
       CASE WHEN st.done THEN st ELSE COLLECT {
         WITH COLLECT { UNWIND st.f AS x MATCH (x)<-[:SPAWNED|UNCLE_OF]-(p:Session) WHERE NOT p IN st.seen RETURN DISTINCT p } AS next,
              COLLECT { UNWIND st.f AS x WITH x WHERE NOT EXISTS { (x)<-[:SPAWNED|UNCLE_OF]-(:Session) } RETURN x } AS top
         RETURN CASE
           WHEN size(next) = 0 THEN {f: [], seen: st.seen, top: st.top + top, stalled: [], done: true}
           WHEN depth > $max_depth OR size(st.seen) + size(next) > $max_nodes
             THEN {f: [], seen: st.seen, top: st.top + top, stalled: st.f, done: true}
           ELSE {f: next, seen: st.seen + next, top: st.top + top, stalled: [], done: false}
         END
       }[0] END) AS up
WITH s, origin, chainCut OR size(up.stalled) > 0 AS upCut,
     [origin] + [a IN COLLECT { UNWIND up.top + up.stalled AS a WITH DISTINCT a ORDER BY a.id RETURN a } WHERE a <> origin] AS roots
WITH s, origin, upCut, roots,
     reduce(st = {f: roots, order: [r IN roots | {n: r, depth: 0, under: null}], seen: roots, cut: false, done: false},
            level IN range(1, $max_depth + 1) |
       CASE WHEN st.done THEN st ELSE COLLECT {
         WITH COLLECT {
           CALL (st) {
             UNWIND st.f AS x
             WITH x WHERE NOT x:WideSenior
             MATCH (x)-[e:SPAWNED|UNCLE_OF]->(j)
             WHERE NOT j IN st.seen
             RETURN j, coalesce(e.junior_id, j.id) AS jid
             UNION ALL
             UNWIND [x IN st.f WHERE x:WideSenior] AS x
             CALL (x, st) {
               MATCH ()-[e:SPAWNED]->(j)
               WHERE e.senior_id = x.id AND e.junior_id IS NOT NULL AND NOT j IN st.seen
               WITH e, j ORDER BY e.senior_id, e.junior_id LIMIT $max_nodes + 1
               RETURN j, e.junior_id AS jid
               UNION ALL
               MATCH ()-[e:UNCLE_OF]->(j)
               WHERE e.senior_id = x.id AND e.junior_id IS NOT NULL AND NOT j IN st.seen
               WITH e, j ORDER BY e.senior_id, e.junior_id LIMIT $max_nodes + 1
               RETURN j, e.junior_id AS jid
             }
             RETURN j, jid
           }
           WITH DISTINCT j, jid ORDER BY jid LIMIT $max_nodes + 1
           RETURN {n: j, depth: level}
         } AS found
         WITH found, $max_nodes - size(st.order) AS room
         WITH CASE WHEN room + 1 > 0 THEN found[..room + 1] ELSE [] END AS found, room
         WITH found, CASE WHEN room > 0 THEN found[..room] ELSE [] END AS admitted
         RETURN CASE
           WHEN size(found) = 0 THEN st{.*, f: [], done: true}
           WHEN level > $max_depth THEN st{.*, f: [], cut: true, done: true}
           ELSE st{.*, f: [e IN admitted | e.n], order: st.order + admitted, seen: st.seen + [e IN admitted | e.n],
                   cut: size(admitted) < size(found), done: size(admitted) < size(found)}
         END
       }[0] END) AS down
WITH s, origin, roots, upCut OR down.cut AS cut, down.order AS order, s IN down.seen AS reached
WITH s, origin, roots, cut OR NOT reached AS truncated,
     CASE WHEN reached THEN order
       ELSE order + {n: s, depth: last(order).depth + 1, under: last(order).n.id} END AS order
WITH s, origin, roots, truncated, order, [e IN order | e.n] AS members
RETURN s, origin.id AS origin, [r IN roots | r.id] AS roots, truncated,
  COLLECT {
    UNWIND range(0, size(order) - 1) AS i
    WITH i, order[i] AS e, order[i].n AS n
    RETURN [n.id, n.title, n.agent_root_key, n.status, n.genesis, n.scheduling_class,
            [(n)<-[sp:SPAWNED]-(p) | coalesce(sp.senior_id, p.id)][0],
            [(n)<-[un:UNCLE_OF]-(u) | coalesce(un.senior_id, u.id)],
            e.depth, e.under]
    ORDER BY i
  } AS nodes,
  COLLECT {
    UNWIND members AS n
    MATCH (n)-[:HAS_HUMAN_MESSAGE]->(h:HumanMessage)
    WITH h ORDER BY h.occurred_at, h.id
    RETURN h{.id, .session_id, .author, .channel, .content, .occurred_at, .entry_point, .slack_user_id,
             .slack_channel, .slack_permalink}
  } AS messages,
  COLLECT {
    MATCH (u:User)
    WITH u ORDER BY u.key
    RETURN u{.key, .display_name, .email, .slack_user_ids, .notes, .created_at, .updated_at}
  } AS users,
  COUNT { (s)-[:HAS_MESSAGE]->(m:EnqueuedMessage) WHERE m.status = $pending } AS pending_total,
  COLLECT {
    MATCH (s)-[:HAS_MESSAGE]->(m:EnqueuedMessage)
    WHERE m.status = $pending
    WITH m ORDER BY m.position, m.id LIMIT $queue_preview
    RETURN m
  } AS pending,
  COLLECT { MATCH (c:Category {id: s.category_id}) RETURN c }[0] AS category,
  COLLECT {
    MATCH (s)-[:HAS_STATUS_SUMMARY]->(ss:StatusSummary)
    RETURN ss{.summary, .error, .state, generating: coalesce(ss.generating, false), .requested_at, .generated_at,
              covered_bytes: coalesce(ss.covered_bytes, 0)}
  }[0] AS status_summary
