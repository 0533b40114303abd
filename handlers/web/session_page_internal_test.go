package web

import (
	"slices"
	"testing"

	"github.com/zimmerhq/zimmer/session"
)

func TestTheButtonsAreTheOnesTheStatusAllows(t *testing.T) {
	tests := []struct {
		status session.Status
		want   []string
	}{
		{session.StatusRunning, []string{"Pause", "Demote to spot", "Sleep after this turn", "Archive", "Re-read transcript", "Favourite"}},
		{session.StatusWaiting, []string{"Demote to spot", "Sleep", "Archive", "Re-read transcript", "Favourite"}},
		{session.StatusNeedsInput, []string{"Restart", "Demote to spot", "Sleep", "Archive", "Re-read transcript", "Favourite"}},
		{session.StatusFailed, []string{"Restart", "Demote to spot", "Sleep", "Archive", "Re-read transcript", "Favourite"}},
		{session.StatusArchived, []string{"Restore from Trash", "Delete forever", "Re-read transcript", "Favourite"}},
	}
	for _, tt := range tests {
		var got []string
		for _, a := range actions(&session.Session{ID: 7, Status: tt.status}, "token") {
			got = append(got, a.Label)
			if a.Danger != (a.Confirm != "") {
				t.Errorf("%s: %q is marked dangerous without asking first, or asks without the mark", tt.status, a.Label)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.status, got, tt.want)
		}
	}
}
