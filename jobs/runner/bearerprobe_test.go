package runner_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
)

// bearerProbe is the MCP server of the real-CLI credential-store test (realcli_internal_test.go),
// run by the test binary inside the CLI's own network namespace (loopback only): a streamable
// HTTP endpoint on 127.0.0.1:$ZIMMER_RUNNER_BEARER_PORT that answers only requests bearing
// $ZIMMER_RUNNER_BEARER_WANT and appends every Authorization header it is sent to log. It
// creates log+".ready" once it listens.
func bearerProbe(log string) int {
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("ZIMMER_RUNNER_BEARER_PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bearer probe:", err)
		return 1
	}
	want := "Bearer " + os.Getenv("ZIMMER_RUNNER_BEARER_WANT")
	seen, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bearer probe:", err)
		return 1
	}
	if err := os.WriteFile(log+".ready", nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "bearer probe:", err)
		return 1
	}
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(seen, "%s %s\n", r.Method, r.Header.Get("Authorization"))
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Bearer realm="probe"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if req.ID == nil { // a notification
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := map[string]any{"tools": []any{}}
		if req.Method == "initialize" {
			result = map[string]any{"protocolVersion": req.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "bearer-probe", "version": "1"}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}))
	fmt.Fprintln(os.Stderr, "bearer probe:", err)
	return 1
}
