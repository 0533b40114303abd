package queries

import _ "embed"

// GetAppSettings reads the app settings.
//
//go:embed get_app_settings.cypher
var GetAppSettings string

// UpdateAppSettings changes the app settings.
//
//go:embed update_app_settings.cypher
var UpdateAppSettings string
