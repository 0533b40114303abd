package provenance

import (
	"strings"
	"testing"
)

func TestToolDescriptionCarriesEveryCaveat(t *testing.T) {
	for _, phrase := range []string{
		"not injected into your turns", "provenance_via_mcp_enabled", "before you rely on what a human asked for",
		"SPAWN edge", `NOT "most recently talked to"`, "also senior: #N", "UNCLE edge", "claim of seniority, not proof of one",
		"authenticated actor at the input boundary", "never off the text of a message",
		"marked `here` are a human speaking to THAT session", "NOT an instruction to it", "Absence is meaningful",
		"router-written spawn prompt", "heartbeat nudge", "never evidence of human authorization",
	} {
		if !strings.Contains(ToolDescription, phrase) {
			t.Errorf("description lacks %q", phrase)
		}
	}
}
