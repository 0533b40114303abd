package queries

import _ "embed"

// The MCP servers' OAuth credentials (orchestrator/oauth.go).

// GetOAuthCredential reads one server's sealed credential.
//
//go:embed get_oauth_credential.cypher
var GetOAuthCredential string

// PutOAuthCredential stores one server's sealed credential.
//
//go:embed put_oauth_credential.cypher
var PutOAuthCredential string

// ListOAuthCredentials reads every sealed credential.
//
//go:embed list_oauth_credentials.cypher
var ListOAuthCredentials string

// DeleteOAuthCredential retires one server's credential.
//
//go:embed delete_oauth_credential.cypher
var DeleteOAuthCredential string

// OAuthParkedSessions finds the sessions parked for OAuth authorization.
//
//go:embed oauth_parked_sessions.cypher
var OAuthParkedSessions string
