package orchestrator

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zimmerhq/zimmer/catalog"
	"github.com/zimmerhq/zimmer/provenance"
	"github.com/zimmerhq/zimmer/session"
	"github.com/zimmerhq/zimmer/transcript"
)

// A server that cannot connect costs a capability, not the session. Each failed server the
// runtime reports is routed on its own:
//
//	OAuth-capable, auth-type error, no usable credential  park (failed / oauth_required)
//	static credential the provider rejected               left out at once
//	anything else                                         retried 30 s / 60 s / 120 s, then left out
//
// A server left out is recorded in metadata.mcp_degraded_servers with its reason, every later
// prompt carries an <unavailable-mcp-servers> block naming it, and the session continues with a
// recovery nudge. The record is retired only when the runtime reports the server connected
// again; nothing else (a restart, a recovery sweep) clears it.

// MCPRoute is what a server's connection failure leads to.
type MCPRoute string

// The routes.
const (
	RouteOAuth   MCPRoute = "oauth_required"
	RouteDegrade MCPRoute = "degrade"
	RouteRetry   MCPRoute = "retry"
)

// MCPRetryBudget is how many times the ladder retries before the servers are left out.
const MCPRetryBudget = 3

// MCPRetryDelay is the ladder's wait before retry attempt (0-based): base, doubling (30 s, 60 s,
// 120 s with the default base).
func MCPRetryDelay(base time.Duration, attempt int) time.Duration { return base << attempt }

// authErrorPattern is what the transport says when a credential is refused.
var authErrorPattern = regexp.MustCompile(`(?i)\b401\b|unauthori[sz]ed|oauth|invalid_token|supported scopes`)

// stderrRejection is what a server itself prints when its provider refused the credential; it
// counts only inside the "Server stderr:" segment of the joined error.
var stderrRejection = regexp.MustCompile(`(?i)invalid api key|authentication failed|bad credentials`)

// stderrNamesRejection: one " | "-joined segment carries both the stderr marker and a phrase
// whose whole meaning is "the credential was refused".
func stderrNamesRejection(blob string) bool {
	for seg := range strings.SplitSeq(blob, " | ") {
		if strings.Contains(seg, "Server stderr:") && stderrRejection.MatchString(seg) {
			return true
		}
	}
	return false
}

// ClassifyMCPFailure routes one server's failure. oauthCapable and hasCredential describe the
// server; status and errText are what the runtime reported. The stderr narrowing never parks:
// an OAuth-capable server whose own output names a rejection keeps the ladder.
func ClassifyMCPFailure(oauthCapable, hasCredential bool, status, errText string) MCPRoute {
	authish := status == transcript.MCPNeedsAuth || authErrorPattern.MatchString(errText)
	switch {
	case oauthCapable && authish && !hasCredential:
		return RouteOAuth
	case oauthCapable:
		return RouteRetry
	case authish || stderrNamesRejection(errText):
		return RouteDegrade
	}
	return RouteRetry
}

// MCPVerdict is what the runner does about the failures one pass found.
type MCPVerdict struct {
	Park     []OAuthMissing // any: the session parks for OAuth
	Degraded []string       // servers left out in this pass
	Retry    []string       // servers the ladder retries
	Attempt  int            // the ladder attempt a retry would be (0-based)
	Text     string         // the failures, for the timeline
}

// Acts reports whether the turn has to end for the failures.
func (v MCPVerdict) Acts() bool { return len(v.Park)+len(v.Degraded)+len(v.Retry) > 0 }

// RecordMCPStatus stores the servers' reported states on the owned turn (custom_metadata
// mcp_servers_status), retires the degraded record of a server that connected again, and routes
// every newly failed server the session selected; a server it already left out failing again is
// a no-op. Degraded servers are recorded here, in the same write.
func (s *Service) RecordMCPStatus(ctx context.Context, sessionID int64, taskID string, reported []transcript.MCPStatus) (MCPVerdict, error) {
	if len(reported) == 0 {
		return MCPVerdict{}, nil
	}
	cat := s.Catalog()
	routes := map[string]MCPRoute{}
	for _, r := range reported {
		if r.Status != transcript.MCPFailed && r.Status != transcript.MCPNeedsAuth {
			continue
		}
		a, ok := cat.MCPServers[r.Server]
		capable := ok && a.OAuthCapable()
		has := false
		if capable {
			st, err := s.CredentialState(ctx, r.Server)
			has = err == nil && (st == catalog.CredentialActive || st == catalog.CredentialExpiredRefreshable)
		}
		routes[r.Server] = ClassifyMCPFailure(capable, has, r.Status, r.Error)
	}
	var v MCPVerdict
	var retired []string
	_, err := s.updateOwned(ctx, sessionID, taskID, func(u *session.Session) error {
		v, retired = MCPVerdict{}, nil
		status, _ := u.CustomMetadata[session.CustomMCPServersStatus].(map[string]any)
		if status == nil {
			status = map[string]any{}
		}
		degraded := session.DegradedServers(u)
		retries, _ := u.Metadata[session.MetaTroubleRetries].(map[string]any)
		v.Attempt = session.BagInt(retries, TroubleMCPConnection)
		var texts []string
		for _, r := range reported {
			status[r.Server] = r.Status
			if r.Status == transcript.MCPConnected {
				if _, ok := degraded[r.Server]; ok {
					delete(degraded, r.Server)
					retired = append(retired, r.Server)
				}
				continue
			}
			route, failed := routes[r.Server]
			if _, already := degraded[r.Server]; !failed || already || !slices.Contains(u.MCPServers, r.Server) {
				continue // injected servers and ones already left out change nothing
			}
			reason := cmp.Or(r.Error, "the server reported "+r.Status)
			texts = append(texts, r.Server+": "+reason)
			switch {
			case route == RouteOAuth:
				serverURL, _ := cat.MCPServers[r.Server].Raw["url"].(string)
				v.Park = append(v.Park, OAuthMissing{Server: r.Server, URL: serverURL, Error: reason})
			case route == RouteRetry && v.Attempt < MCPRetryBudget:
				v.Retry = append(v.Retry, r.Server)
			default:
				if route == RouteRetry {
					reason = fmt.Sprintf("did not connect after %d retries: %s", MCPRetryBudget, reason)
				}
				degraded[r.Server] = map[string]any{"reason": clip(reason, 300), "route": string(route), "at": s.now().UTC().Format(time.RFC3339)}
				v.Degraded = append(v.Degraded, r.Server)
			}
		}
		u.CustomMetadata[session.CustomMCPServersStatus] = status
		if len(degraded) > 0 {
			u.Metadata[session.MetaMCPDegradedServers] = degraded
		} else {
			delete(u.Metadata, session.MetaMCPDegradedServers)
		}
		v.Text = strings.Join(texts, "; ")
		return nil
	})
	if err != nil {
		return MCPVerdict{}, err
	}
	for _, name := range retired {
		s.timeline(ctx, sessionID, session.LogInfo, fmt.Sprintf("MCP server %s connected again; it is no longer left out", name))
	}
	if len(v.Degraded) > 0 {
		s.timeline(ctx, sessionID, session.LogWarning, fmt.Sprintf("MCP server(s) %s left out: the session runs on without their tools (%s)",
			strings.Join(v.Degraded, ", "), v.Text))
	}
	return v, nil
}

// TroubleMCPConnection is the retry class of the MCP connection ladder; TroubleMCPDegraded the
// recovery turn after servers were left out.
const (
	TroubleMCPConnection = "mcp_connection"
	TroubleMCPDegraded   = "mcp_degraded"
)

// MCPRecoveryPrompt continues a conversation whose turn was ended because MCP servers could not
// connect.
const MCPRecoveryPrompt = "SYSTEM_RECOVERY: your previous turn was interrupted because MCP servers could not connect. " +
	"Continue where you left off; the <unavailable-mcp-servers> block below says which tools are gone."

// UnavailableMCPBlock is the prompt block naming the servers a session runs without ("" when none).
func UnavailableMCPBlock(sess *session.Session) string {
	degraded := session.DegradedServers(sess)
	if len(degraded) == 0 {
		return ""
	}
	names := make([]string, 0, len(degraded))
	for name := range degraded {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("<unavailable-mcp-servers>\nThese MCP servers could not connect and were left out of this session; their tools are not available to you:\n")
	for _, name := range names {
		entry, _ := degraded[name].(map[string]any)
		fmt.Fprintf(&b, "- %s: %s\n", name, provenance.NeutralizeTags(oneLine(session.BagString(entry, "reason"))))
	}
	b.WriteString("If you genuinely need one of these capabilities to finish the task, stop and say so rather than improvising a substitute.\n</unavailable-mcp-servers>")
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
