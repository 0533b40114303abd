package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/zimmerhq/zimmer/queries"
)

// OAuthCredential is an MCP server's stored OAuth credential. Sealed is the encrypted
// credential (tokens and client registration); the graph never sees it in the clear. ExpiresAt
// and Refreshable are kept beside it so readiness is answered without decrypting anything.
type OAuthCredential struct {
	Server, URL, Sealed string
	ExpiresAt           *time.Time // nil: the server named no lifetime
	Refreshable         bool
	UpdatedAt           time.Time
}

// OAuthCredential reads one server's credential; ErrNotFound when none is stored.
func (s *Store) OAuthCredential(ctx context.Context, server string) (OAuthCredential, error) {
	out, err := read(ctx, s, "get_oauth_credential", func(tx txn) (OAuthCredential, error) {
		rec, err := tx.single("get_oauth_credential", queries.GetOAuthCredential, map[string]any{"server": server})
		if err != nil {
			return OAuthCredential{}, err
		}
		return oauthCredential(rec)
	})
	if err != nil {
		return OAuthCredential{}, fmt.Errorf("read the OAuth credential of %s: %w", server, err)
	}
	return out, nil
}

// OAuthCredentials reads every stored credential, by server name.
func (s *Store) OAuthCredentials(ctx context.Context) ([]OAuthCredential, error) {
	out, err := read(ctx, s, "list_oauth_credentials", func(tx txn) ([]OAuthCredential, error) {
		recs, err := tx.collect("list_oauth_credentials", queries.ListOAuthCredentials, nil)
		if err != nil {
			return nil, err
		}
		list := make([]OAuthCredential, 0, len(recs))
		for _, rec := range recs {
			c, err := oauthCredential(rec)
			if err != nil {
				return nil, err
			}
			list = append(list, c)
		}
		return list, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list OAuth credentials: %w", err)
	}
	return out, nil
}

// PutOAuthCredential stores a server's credential, replacing the one it had.
func (s *Store) PutOAuthCredential(ctx context.Context, c OAuthCredential) error {
	var expires any
	if c.ExpiresAt != nil {
		expires = c.ExpiresAt.UTC()
	}
	_, err := write(ctx, s, "put_oauth_credential", func(tx txn) (struct{}, error) {
		_, err := tx.single("put_oauth_credential", queries.PutOAuthCredential, map[string]any{"server": c.Server, "url": c.URL,
			"sealed": c.Sealed, "expires_at": expires, "refreshable": c.Refreshable, "at": s.now().UTC()})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("store the OAuth credential of %s: %w", c.Server, err)
	}
	return nil
}

// DeleteOAuthCredential retires the credential version sealed; one replaced meanwhile stays.
func (s *Store) DeleteOAuthCredential(ctx context.Context, server, sealed string) error {
	_, err := write(ctx, s, "delete_oauth_credential", func(tx txn) (struct{}, error) {
		_, err := tx.single("delete_oauth_credential", queries.DeleteOAuthCredential, map[string]any{"server": server, "sealed": sealed})
		return struct{}{}, err
	})
	if err != nil {
		return fmt.Errorf("retire the OAuth credential of %s: %w", server, err)
	}
	return nil
}

// OAuthParkedSessions lists the ids of failed sessions parked for OAuth authorization.
func (s *Store) OAuthParkedSessions(ctx context.Context, limit int) ([]int64, error) {
	out, err := read(ctx, s, "oauth_parked_sessions", func(tx txn) ([]int64, error) {
		recs, err := tx.collect("oauth_parked_sessions", queries.OAuthParkedSessions, map[string]any{"limit": limit})
		if err != nil {
			return nil, err
		}
		ids := make([]int64, 0, len(recs))
		for _, rec := range recs {
			id, _, err := neo4j.GetRecordValue[int64](rec, "id")
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions parked for OAuth: %w", err)
	}
	return out, nil
}

func oauthCredential(rec *neo4j.Record) (OAuthCredential, error) {
	var c OAuthCredential
	var err error
	if c.Server, _, err = neo4j.GetRecordValue[string](rec, "server"); err != nil {
		return c, err
	}
	c.URL, _, _ = neo4j.GetRecordValue[string](rec, "url")
	c.Sealed, _, _ = neo4j.GetRecordValue[string](rec, "sealed")
	c.Refreshable, _, _ = neo4j.GetRecordValue[bool](rec, "refreshable")
	if at, isNil, err := neo4j.GetRecordValue[time.Time](rec, "expires_at"); err == nil && !isNil {
		at = at.UTC()
		c.ExpiresAt = &at
	}
	if at, isNil, err := neo4j.GetRecordValue[time.Time](rec, "updated_at"); err == nil && !isNil {
		c.UpdatedAt = at.UTC()
	}
	return c, nil
}
