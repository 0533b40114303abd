package session

import (
	"slices"
	"time"
)

// BacklogItem is one entry of the work backlog: a cleared issue that the unattended backlog job
// (or a pulling session) turns into a spot implementing session. Rank is the item's 1-based
// place in the whole queue while it is queued and 0 once it has left it.
type BacklogItem struct {
	ID       int64
	IssueURL string
	Title    string
	Notes    string
	Band     string
	Rank     int64
	Pinned   bool
	Status   BacklogStatus
	// AddedBySession and AddedByRoot are stamped from the writing connection for an agent's
	// append; AddedBy names a human who added it on the web page or REST. Never caller-set.
	AddedBySession *int64
	AddedByRoot    string
	AddedBy        string
	// SessionID is the session the item was started as; PulledBy the session that pulled it
	// (none when the unattended job or a human started it); StartedBy says who started it.
	SessionID     *int64
	PulledBy      *int64
	StartedBy     string
	RemovedReason string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// BacklogStatus is where an item is in its life: queued until it is started or removed.
type BacklogStatus string

// The statuses of a backlog item. An item is "starting" between leaving the queue and its
// session being recorded, so two pullers never start it twice.
const (
	BacklogQueued   BacklogStatus = "queued"
	BacklogStarting BacklogStatus = "starting"
	BacklogStarted  BacklogStatus = "started"
	BacklogRemoved  BacklogStatus = "removed"
)

// BacklogStartedByJob is the StartedBy of an item the unattended backlog job started.
const BacklogStartedByJob = "the backlog job"

// BacklogBands are the placement bands, most urgent first. An append lands after every item of
// its own band or a more urgent one, and never above a pinned item.
var BacklogBands = []string{"urgent", "high", "normal", "low"}

// DefaultBacklogBand is the band of an append that names none.
const DefaultBacklogBand = "normal"

// BacklogRemovalReasons are the only reasons an agent may give for removing an item (on a pull):
// facts it observed, never a judgement that the item is not worth doing.
var BacklogRemovalReasons = []string{"issue_closed", "issue_not_found", "already_fixed", "duplicate"}

// Limits of a backlog item's text.
const (
	MaxBacklogURL   = 2000
	MaxBacklogTitle = 200
	MaxBacklogNotes = 20000
)

// BacklogPlacement is the 0-based index a new item of band takes in queue (the queued items in
// rank order): after the last pinned item and after every item of its band or a more urgent
// one, so appends keep the bands in order and never displace a human's pin.
func BacklogPlacement(queue []BacklogItem, band string) int {
	want := slices.Index(BacklogBands, band)
	at := 0
	for i, it := range queue {
		if it.Pinned || slices.Index(BacklogBands, it.Band) <= want {
			at = i + 1
		}
	}
	return at
}
