package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
)

// AppSettings are the deployment-wide switches an operator flips without a deploy.
type AppSettings struct {
	// ProvenanceViaMCPEnabled puts a pointer to get_session_provenance into every turn instead
	// of the whole human-message record (the experiment ships on).
	ProvenanceViaMCPEnabled bool
	UpdatedAt               *time.Time // nil until the settings are first written
}

// AppSettingsChange names the settings to change; nil leaves one as it is.
type AppSettingsChange struct {
	ProvenanceViaMCPEnabled *bool
}

// AppSettings reads the settings; never-written ones read as their defaults.
func (s *Store) AppSettings(ctx context.Context) (AppSettings, error) {
	out, err := read(ctx, s, "get_app_settings", func(tx txn) (AppSettings, error) {
		rec, err := tx.single("get_app_settings", queries.GetAppSettings, nil)
		if err != nil {
			return AppSettings{}, err
		}
		return appSettings(rec)
	})
	if err != nil {
		return AppSettings{}, fmt.Errorf("read app settings: %w", err)
	}
	return out, nil
}

// UpdateAppSettings applies a change and returns the settings as they now are.
func (s *Store) UpdateAppSettings(ctx context.Context, c AppSettingsChange) (AppSettings, error) {
	var enabled any
	if c.ProvenanceViaMCPEnabled != nil {
		enabled = *c.ProvenanceViaMCPEnabled
	}
	out, err := write(ctx, s, "update_app_settings", func(tx txn) (AppSettings, error) {
		rec, err := tx.single("update_app_settings", queries.UpdateAppSettings,
			map[string]any{"provenance_via_mcp_enabled": enabled, "at": s.now().UTC()})
		if err != nil {
			return AppSettings{}, err
		}
		return appSettings(rec)
	})
	if err != nil {
		return AppSettings{}, fmt.Errorf("update app settings: %w", err)
	}
	return out, nil
}

func appSettings(rec *neo4j.Record) (AppSettings, error) {
	enabled, _, err := neo4j.GetRecordValue[bool](rec, "provenance_via_mcp_enabled")
	if err != nil {
		return AppSettings{}, err
	}
	out := AppSettings{ProvenanceViaMCPEnabled: enabled}
	if at, isNil, err := neo4j.GetRecordValue[time.Time](rec, "updated_at"); err == nil && !isNil {
		at = at.UTC()
		out.UpdatedAt = &at
	}
	return out, nil
}
