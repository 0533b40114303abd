package rest

import (
	"time"

	"github.com/zimmerhq/zimmer/provenance"
)

// humanMessageJSON is one entry of `human_messages`, a top-level sibling of `session` on
// GET /sessions/:id. REST carries each entry's origin rather than the counts, so a client
// derives whichever counts it wants.
type humanMessageJSON struct {
	Origin              provenance.Origin `json:"origin"`
	Author              string            `json:"author"`
	AuthorDisplayName   string            `json:"author_display_name"`
	Channel             string            `json:"channel"`
	ChannelLabel        string            `json:"channel_label"`
	AuthoredInSessionID int64             `json:"authored_in_session_id"`
	AuthoredIn          string            `json:"authored_in"`
	EntryPoint          *string           `json:"entry_point"`
	Content             string            `json:"content"`
	OccurredAt          string            `json:"occurred_at"`
}

// renderHumanMessages is the whole record, chronological and never budgeted; [] when empty.
func renderHumanMessages(rec provenance.Record) []humanMessageJSON {
	out := make([]humanMessageJSON, 0, len(rec.Entries))
	for _, e := range rec.Entries {
		row := humanMessageJSON{Origin: e.Origin, Author: e.Author, AuthorDisplayName: e.DisplayName,
			Channel: e.Channel, ChannelLabel: e.ChannelLabel(), AuthoredInSessionID: e.SessionID,
			AuthoredIn: e.AuthoredIn(), Content: e.Content, OccurredAt: e.OccurredAt.UTC().Format(time.RFC3339)}
		if e.EntryPoint != "" {
			ep := e.EntryPoint
			row.EntryPoint = &ep
		}
		out = append(out, row)
	}
	return out
}
