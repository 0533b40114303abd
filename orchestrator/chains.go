package orchestrator

import (
	"context"
	"fmt"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/roster"
)

// ChainReport is one session's human-message chain recomputed.
type ChainReport struct {
	SessionID int64
	Records   int
	Head      string        // the session chain's last digest, as stored
	Broken    *roster.Break // the first link that does not recompute; nil when intact
	Fleet     graph.ChainHead
}

// VerifyHumanMessages recomputes a session's human-message chain and names its first broken
// link: a record changed, removed or reordered in the store after Zimmer wrote it.
func (s *Service) VerifyHumanMessages(ctx context.Context, id int64) (ChainReport, error) {
	if _, err := s.store.GetSession(ctx, id); err != nil {
		return ChainReport{}, err
	}
	chains, err := s.store.HumanChains(ctx, id, id-1, 1)
	if err != nil {
		return ChainReport{}, err
	}
	fleet, err := s.store.FleetChainHead(ctx)
	if err != nil {
		return ChainReport{}, err
	}
	r := ChainReport{SessionID: id, Fleet: fleet}
	if len(chains) == 1 {
		c := chains[0]
		r.Records, r.Head, r.Broken = len(c.Records), c.HeadDigest, roster.VerifyChain(c.SessionID, c.Records, c.HeadLength, c.HeadDigest)
	}
	return r, nil
}

// chainPage is how many sessions' chains one read of VerifyAllHumanMessages takes.
const chainPage = 200

// VerifyAllHumanMessages recomputes every session's human-message chain and returns each
// session's first broken link, by session id.
func (s *Service) VerifyAllHumanMessages(ctx context.Context) ([]*roster.Break, error) {
	var breaks []*roster.Break
	for after := int64(-1 << 62); ; {
		chains, err := s.store.HumanChains(ctx, 0, after, chainPage)
		if err != nil {
			return nil, fmt.Errorf("verify human-message chains: %w", err)
		}
		for _, c := range chains {
			if b := roster.VerifyChain(c.SessionID, c.Records, c.HeadLength, c.HeadDigest); b != nil {
				breaks = append(breaks, b)
			}
			after = c.SessionID
		}
		if len(chains) < chainPage {
			return breaks, nil
		}
	}
}
