// Package settings holds the deployment-wide switches an operator flips at run time; it is
// pure Go, with no storage or transport.
package settings

import "time"

// App are the deployment-wide switches an operator flips without a deploy.
type App struct {
	// ProvenanceViaMCPEnabled puts a pointer to get_session_provenance into every turn instead
	// of the whole human-message record (the experiment ships on).
	ProvenanceViaMCPEnabled bool
	UpdatedAt               *time.Time // nil until the settings are first written
}

// Change names the settings to change; nil leaves one as it is.
type Change struct {
	ProvenanceViaMCPEnabled *bool
}
