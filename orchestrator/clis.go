package orchestrator

import (
	"context"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/jobs/tasks"
)

// CLIStatusView is the agent CLIs' status cache as the surfaces report it: one entry per
// runtime, in runtime order.
type CLIStatusView struct {
	CLIs         []CLIEntry `json:"clis"`
	RefreshEvery int        `json:"refresh_every_seconds"`
}

// CLIEntry is one runtime's record. Missing: never probed (or the cache was cleared since);
// Stale: probed longer ago than two refresh cadences, so the tick is not running.
type CLIEntry struct {
	tasks.CLIStatus
	Missing bool `json:"missing"`
	Stale   bool `json:"stale"`
}

// CLIStatus reads the cache.
func (s *Service) CLIStatus(ctx context.Context) (CLIStatusView, error) {
	cached, err := s.queue.CLIStatuses(ctx)
	if err != nil {
		return CLIStatusView{}, err
	}
	v := CLIStatusView{CLIs: []CLIEntry{}, RefreshEvery: int(tasks.CLIsRefreshEvery / time.Second)}
	for _, runtime := range catalog.RuntimeKeys {
		c, ok := cached[runtime]
		if !ok {
			v.CLIs = append(v.CLIs, CLIEntry{CLIStatus: tasks.CLIStatus{Runtime: runtime}, Missing: true})
			continue
		}
		v.CLIs = append(v.CLIs, CLIEntry{CLIStatus: c, Stale: c.CheckedAt == nil || s.now().Sub(*c.CheckedAt) > 2*tasks.CLIsRefreshEvery})
	}
	return v, nil
}

// RefreshCLIs queues a probe of every agent CLI; never throttled (it only enqueues).
func (s *Service) RefreshCLIs(ctx context.Context) error {
	return s.queue.EnqueueCLIRefresh(ctx)
}

// ClearCLICache forgets every record, then queues the probe that refills them.
func (s *Service) ClearCLICache(ctx context.Context) error {
	if err := s.queue.ClearCLIStatuses(ctx); err != nil {
		return err
	}
	return s.queue.EnqueueCLIRefresh(ctx)
}
