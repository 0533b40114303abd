package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/zimmerhq/zimmer/graph"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/settings"
)

// SpotPolicy reads the spot gate's policy and the genesis class overrides.
func (s *Service) SpotPolicy(ctx context.Context) (settings.Spot, error) {
	return s.store.SpotPolicy(ctx)
}

// UpdateSpotPolicy changes the policy; an invalid change writes nothing and is a
// ValidationError labelled "Invalid spot policy" naming every problem.
func (s *Service) UpdateSpotPolicy(ctx context.Context, c settings.SpotChange) (settings.Spot, error) {
	p, err := s.store.UpdateSpotPolicy(ctx, c)
	if pe := (*graph.SpotPolicyError)(nil); errors.As(err, &pe) {
		return settings.Spot{}, invalid("Invalid spot policy", pe.Messages...)
	}
	return p, err
}

// SetGenesisClass sets the class sessions of a settable genesis derive (every deriving session,
// existing ones included, moves with it); the default class removes the override.
func (s *Service) SetGenesisClass(ctx context.Context, g session.Genesis, c session.Class) (settings.Spot, error) {
	switch {
	case !g.Valid():
		return settings.Spot{}, invalid("Invalid spot policy", fmt.Sprintf("Unknown genesis: %s. Settable: web_ui, api, unknown", g))
	case !g.Settable():
		return settings.Spot{}, invalid("Invalid spot policy", fmt.Sprintf(
			"`%s` takes its class from the trigger that fires it, not from this policy. Set scheduling_class on the trigger instead", g))
	}
	cur, err := s.store.SpotPolicy(ctx)
	if err != nil {
		return settings.Spot{}, err
	}
	next := session.ClassOverrides{}
	for k, v := range cur.GenesisClasses {
		next[k] = v
	}
	if c == g.DefaultClass() {
		delete(next, g)
	} else {
		next[g] = c
	}
	return s.UpdateSpotPolicy(ctx, settings.SpotChange{GenesisClasses: next})
}

// ResetGenesisClasses returns every genesis kind to its default class.
func (s *Service) ResetGenesisClasses(ctx context.Context) (settings.Spot, error) {
	return s.UpdateSpotPolicy(ctx, settings.SpotChange{GenesisClasses: session.ClassOverrides{}})
}

// SpotQueue is one page of the ranked spot queue (parked and held sessions, highest precedence
// first) and its length.
func (s *Service) SpotQueue(ctx context.Context, page, perPage int) ([]*session.Session, int, error) {
	page, perPage = max(page, 1), min(max(perPage, 1), 100)
	return s.store.SpotQueue(ctx, s.fleetScope, (page-1)*perPage, perPage)
}

// SpotCensus counts the sessions the gate holds, by reason, and the ones parked in the queue.
func (s *Service) SpotCensus(ctx context.Context) (map[string]int, int, error) {
	return s.store.SpotCensus(ctx)
}
