package orchestrator

import (
	"time"

	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// transcriptUsage reads the model requests of a session's transcript file, and how many lines
// it holds. A fork's copied head is its source's spend, not its own, and is left out: counting
// it would bill the source's requests twice. A request the line does not time takes the start
// of its turn.
func (s *Service) transcriptUsage(sess *session.Session) ([]transcript.Usage, int, error) {
	skip := 0
	if _, forked := sess.Metadata[session.MetaForkedFromSessionID]; forked {
		skip = session.BagInt(sess.Metadata, session.MetaForkedAtMessageIndex) + 1
	}
	var usages []transcript.Usage
	lines := 0
	var turnAt time.Time
	err := s.eachLine(sess, func(line []byte) bool {
		lines++
		if lines <= skip {
			return true
		}
		ev := transcript.Parse(sess.ID, lines, line)
		if !ev.TurnAt.IsZero() {
			turnAt = ev.TurnAt
		}
		if u := ev.Usage; u != nil {
			if u.At.IsZero() {
				u.At = turnAt
			}
			usages = append(usages, *u)
		}
		return true
	})
	return usages, lines, err
}
