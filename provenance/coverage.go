package provenance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/zimmerhq/zimmer/lineage"
	"github.com/zimmerhq/zimmer/roster"
)

// Gap is a channel some of the hierarchy's sessions came in through that capture is not
// configured for: an empty record there means "Zimmer could not see", not "nobody spoke".
type Gap struct {
	Channel    string  // roster.ChannelWebUI or roster.ChannelSlack
	Genesis    string  // the genesis that routes work through that channel
	SessionIDs []int64 // every session of that genesis, in hierarchy order
	AdminKey   string  // the configured admin key, named by the web UI's reason
}

// captureChannels maps the only two genesis kinds with a human input boundary to their channel;
// every other genesis (GitHub, schedules, events, api, unknown) has none and is never a gap.
var captureChannels = map[string]string{"web_ui": roster.ChannelWebUI, "slack": roster.ChannelSlack}

// CaptureGaps lists the unconfigured channels the hierarchy's sessions came in through, by
// channel name. Configuration is deployment-wide: the web UI is configured when the admin key
// names a roster row, Slack when any row maps a Slack user id (one mapped human closes the gap
// for everyone, a residual stated rather than hidden).
func CaptureGaps(h *lineage.Hierarchy, users []roster.User, adminKey string) []Gap {
	_, adminOK := roster.Admin(users, adminKey)
	configured := map[string]bool{roster.ChannelWebUI: adminOK, roster.ChannelSlack: roster.AnySlackMapping(users)}
	byChannel := map[string]*Gap{}
	for _, n := range h.Nodes {
		ch, ok := captureChannels[n.Genesis]
		if !ok || configured[ch] {
			continue
		}
		g := byChannel[ch]
		if g == nil {
			g = &Gap{Channel: ch, Genesis: n.Genesis, AdminKey: roster.AdminKey(adminKey)}
			byChannel[ch] = g
		}
		g.SessionIDs = append(g.SessionIDs, n.ID)
	}
	gaps := make([]Gap, 0, len(byChannel))
	for _, g := range byChannel {
		gaps = append(gaps, *g)
	}
	slices.SortFunc(gaps, func(a, b Gap) int { return strings.Compare(a.Channel, b.Channel) })
	return gaps
}

// Label names the channel inside gap text.
func (g Gap) Label() string {
	if g.Channel == roster.ChannelWebUI {
		return "the Zimmer web UI"
	}
	return "Slack"
}

// Reason says why capture cannot see the channel.
func (g Gap) Reason() string {
	if g.Channel == roster.ChannelWebUI {
		return fmt.Sprintf("The configured admin key (ZIMMER_ADMIN_USER, currently `%s`) names no row in this deployment's roster, so nothing typed into the web UI resolves to a human and none of it was recorded.",
			codeSpan(g.AdminKey))
	}
	return "No row in this deployment's roster maps any Slack user ID, so every Slack message resolved to nobody and recorded nothing — whoever sent it."
}

// Remedy says what an operator changes to close the gap.
func (g Gap) Remedy() string {
	if g.Channel == roster.ChannelWebUI {
		return "Add a row with that key at /supervisor/users, or point ZIMMER_ADMIN_USER at a key that exists."
	}
	return "Fill in the human's Slack user ID at /supervisor/users. It is a row edit, not a deploy."
}

// maxGapIDs bounds the session ids a gap bullet lists; the count beside them stays exact.
const maxGapIDs = 5

// Bullet is the gap's one-line bullet under the counts.
func (g Gap) Bullet() string {
	n := len(g.SessionIDs)
	ids := make([]string, 0, maxGapIDs)
	for _, id := range g.SessionIDs[:min(n, maxGapIDs)] {
		ids = append(ids, fmt.Sprintf("#%d", id))
	}
	list := strings.Join(ids, ", ")
	if n > maxGapIDs {
		list += fmt.Sprintf(" and %d more", n-maxGapIDs)
	}
	label := g.Label()
	return fmt.Sprintf("- **Capture is NOT configured for %s, which %d %s in this hierarchy came in through** (genesis `%s`: %s). %s So the counts above are a FLOOR for that channel: a human may have spoken there and Zimmer could not see it. Absence of a %s entry is not evidence that nobody spoke — it is the check failing to run. %s",
		label, n, plural(n, "session", "sessions"), codeSpan(g.Genesis), list, OneLine(g.Reason()), label, OneLine(g.Remedy()))
}

// codeSpan makes an untrusted value safe inside a one-line inline code span.
func codeSpan(s string) string { return strings.ReplaceAll(OneLine(s), "`", "ˋ") }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
