package orchestrator

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/session"
)

// FleetRefresh is what refresh_all did, session by session: Restarted (failed sessions resumed
// with the recovery nudge), Continued (idle sessions not paused by a human, nudged the same
// way), Refreshed (transcripts re-read from disk) and Errors. More: a bound was reached and
// sessions were left for another call.
type FleetRefresh struct {
	Refreshed []int64          `json:"refreshed"`
	Restarted []int64          `json:"restarted"`
	Continued []int64          `json:"continued"`
	Errors    []SessionProblem `json:"errors"`
	More      bool             `json:"more"`
}

// Message is the result in one sentence.
func (r FleetRefresh) Message() string {
	msg := fmt.Sprintf("Refreshed %d, restarted %d, continued %d session(s); %d error(s)", len(r.Refreshed), len(r.Restarted), len(r.Continued), len(r.Errors))
	if r.More {
		msg += "; more sessions remain, run it again"
	}
	return msg
}

const (
	// maxFleetResumes bounds the restarts and continues of one refresh_all, maxFleetRereads its
	// transcript re-reads: a fleet-wide call must not flood the agents lane or the disk.
	maxFleetResumes = 50
	maxFleetRereads = 50
	// fleetWalk bounds the sessions one call looks at.
	fleetWalk = 1000
)

// RefreshAll walks the fleet outside the trash and frozen categories (the service's FleetScope
// when set), most recently changed first: a failed session is restarted and an idle one that
// no human paused is continued with the recovery nudge (up to 50 in all); every other session
// that ran has its transcript re-read from disk (up to 50). Sessions that never ran are passed over.
func (s *Service) RefreshAll(ctx context.Context) (FleetRefresh, error) {
	out := FleetRefresh{Refreshed: []int64{}, Restarted: []int64{}, Continued: []int64{}, Errors: []SessionProblem{}}
	fleet, err := s.store.FleetSessions(ctx, s.fleetScope, fleetWalk)
	if err != nil {
		return out, err
	}
	out.More = len(fleet) == fleetWalk
	for _, sess := range fleet {
		resume := sess.Status == session.StatusFailed || (sess.Status == session.StatusNeedsInput && sess.PausedBy() != PausedByUser)
		switch {
		case resume && len(out.Restarted)+len(out.Continued) >= maxFleetResumes,
			!resume && len(out.Refreshed) >= maxFleetRereads:
			out.More = true
			continue
		case resume:
			if _, err := s.Restart(ctx, sess.ID); err != nil {
				out.Errors = append(out.Errors, SessionProblem{sess.ID, problemText(err)})
				continue
			}
			s.timeline(ctx, sess.ID, session.LogInfo, "Resumed by refresh_all")
			if sess.Status == session.StatusFailed {
				out.Restarted = append(out.Restarted, sess.ID)
			} else {
				out.Continued = append(out.Continued, sess.ID)
			}
		case session.BagString(sess.Metadata, session.MetaTranscriptPath) == "":
			// never ran: nothing to re-read
		default:
			if _, _, err := s.Refresh(ctx, sess.ID); err != nil {
				out.Errors = append(out.Errors, SessionProblem{sess.ID, problemText(err)})
				continue
			}
			out.Refreshed = append(out.Refreshed, sess.ID)
		}
	}
	s.log.Info("refresh_all done", "refreshed", len(out.Refreshed), "restarted", len(out.Restarted), "continued", len(out.Continued), "errors", len(out.Errors), "more", out.More)
	return out, nil
}
