package orchestrator

import (
	"testing"
	"time"

	"github.com/zimmerhq/zimmer/transcript"
)

func TestMCPFailureClassification(t *testing.T) {
	const stderrRejected = "Server stderr: BrightData: Invalid API key - authentication failed | Connection failed after 3941ms (CONNECTION_CLOSED): Connection closed"
	tests := []struct {
		name                        string
		oauthCapable, hasCredential bool
		status, err                 string
		want                        MCPRoute
	}{
		{"OAuth server without a credential, 401", true, false, "failed", "HTTP 401 Unauthorized", RouteOAuth},
		{"OAuth server reporting needs-auth", true, false, transcript.MCPNeedsAuth, "", RouteOAuth},
		{"OAuth server with a credential keeps the ladder", true, true, "failed", "invalid_token", RouteRetry},
		{"OAuth server, unrelated failure", true, false, "failed", "Connection timed out", RouteRetry},
		{"stderr rejection on an OAuth server never parks", true, false, "failed", stderrRejected, RouteRetry},
		{"static credential refused by the transport", false, false, "failed", "Streamable HTTP error: 401 Unauthorized", RouteDegrade},
		{"static credential refused, named only on stderr", false, false, "failed", stderrRejected, RouteDegrade},
		{"bad credentials on stderr", false, false, "failed", "Server stderr: Bad credentials | Connection closed", RouteDegrade},
		{"transport words beside an unrelated stderr line", false, false, "failed",
			"Connection failed: authentication failed | Server stderr: listening on stdio", RouteRetry},
		{"rejection words without the stderr marker", false, false, "failed", "invalid api key", RouteRetry},
		{"a crash", false, false, "failed", "Connection closed", RouteRetry},
		{"npx cache corruption", false, false, "failed", "Server stderr: npm ERR! code ENOTEMPTY | Connection closed", RouteRetry},
	}
	for _, tt := range tests {
		if got := ClassifyMCPFailure(tt.oauthCapable, tt.hasCredential, tt.status, tt.err); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

// The ladder waits 30 s, 60 s, 120 s with the production base, and scales with any base.
func TestMCPRetryLadder(t *testing.T) {
	for _, base := range []time.Duration{30 * time.Second, 100 * time.Millisecond} {
		var got []time.Duration
		for attempt := range MCPRetryBudget {
			got = append(got, MCPRetryDelay(base, attempt))
		}
		want := []time.Duration{base, 2 * base, 4 * base}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("base %s: ladder %v, want %v", base, got, want)
				break
			}
		}
	}
}
