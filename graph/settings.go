package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
	"github.com/zimmerhq/zimmer/settings"
)

// AppSettings reads the settings; never-written ones read as their defaults.
func (s *Store) AppSettings(ctx context.Context) (settings.App, error) {
	out, err := read(ctx, s, "get_app_settings", func(tx txn) (settings.App, error) {
		rec, err := tx.single("get_app_settings", queries.GetAppSettings, map[string]any{"name": s.settings})
		if err != nil {
			return settings.App{}, err
		}
		return appSettings(rec)
	})
	if err != nil {
		return settings.App{}, fmt.Errorf("read app settings: %w", err)
	}
	return out, nil
}

// UpdateAppSettings applies a change and returns the settings as they now are.
func (s *Store) UpdateAppSettings(ctx context.Context, c settings.Change) (settings.App, error) {
	var enabled any
	if c.ProvenanceViaMCPEnabled != nil {
		enabled = *c.ProvenanceViaMCPEnabled
	}
	out, err := write(ctx, s, "update_app_settings", func(tx txn) (settings.App, error) {
		rec, err := tx.single("update_app_settings", queries.UpdateAppSettings,
			map[string]any{"name": s.settings, "provenance_via_mcp_enabled": enabled, "at": s.now().UTC()})
		if err != nil {
			return settings.App{}, err
		}
		return appSettings(rec)
	})
	if err != nil {
		return settings.App{}, fmt.Errorf("update app settings: %w", err)
	}
	return out, nil
}

func appSettings(rec *neo4j.Record) (settings.App, error) {
	enabled, _, err := neo4j.GetRecordValue[bool](rec, "provenance_via_mcp_enabled")
	if err != nil {
		return settings.App{}, err
	}
	out := settings.App{ProvenanceViaMCPEnabled: enabled}
	if at, isNil, err := neo4j.GetRecordValue[time.Time](rec, "updated_at"); err == nil && !isNil {
		at = at.UTC()
		out.UpdatedAt = &at
	}
	return out, nil
}
