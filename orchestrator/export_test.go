package orchestrator

import (
	"context"
	"fmt"
	"time"

	"github.com/zimmerhq/zimmer/session"
)

// RunNotificationEffect runs one of the notification effect handlers as the effects job would,
// for the transition numbered seq of the session.
func (s *Service) RunNotificationEffect(ctx context.Context, sessionID int64, seq int, eff session.Effect, at time.Time) error {
	r := effectRun{SessionID: sessionID, Batch: batchID(sessionID, seq), Effect: eff, At: at}
	switch eff {
	case session.EffectPushNeedsInput:
		return s.pushNeedsInput(ctx, r)
	case session.EffectPushFailed:
		return s.pushFailed(ctx, r)
	case session.EffectMarkNotificationStale:
		return s.markNotificationsStale(ctx, r)
	case session.EffectDeleteNotifications:
		return s.deleteNotifications(ctx, r)
	}
	panic("not a notification effect: " + string(eff))
}

// MetaTransitionSeq is the metadata key numbering a session's transitions.
const MetaTransitionSeq = metaTransitionSeq

// BatchID is the batch id of the session's transition numbered seq.
func BatchID(sessionID int64, seq int) string { return batchID(sessionID, seq) }

func batchID(sessionID int64, seq int) string { return fmt.Sprintf("%d-%d", sessionID, seq) }
