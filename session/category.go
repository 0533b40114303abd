package session

import "time"

// Category groups sessions on the humans' board. A frozen category's sessions are left out of
// bulk refreshes. Names are unique case-insensitively.
type Category struct {
	ID          int64
	Name        string
	Description *string
	IsFrozen    bool
	Position    int64
	Sessions    int // sessions in the category, when read by ListCategories
	CreatedAt   time.Time
	UpdatedAt   time.Time
}
