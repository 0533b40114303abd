// SessionsByStatus: how many sessions hold each status, one index seek per status, for the
// health report and the sessions-by-status gauge.
// Params: $statuses (list of status names). Returns: one row {status, sessions} per status.
UNWIND $statuses AS status
CALL (status) {
  MATCH (s:Session {status: status})
  RETURN count(s) AS sessions
}
RETURN status, sessions
