package roster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// A session's human-message records form a hash chain: each record carries the digest of its
// canonical content and the digest of the record before it in its session, and its own digest
// links the two. An edit to a record's content, a record taken out of the middle, or records
// reordered no longer recompute; the first record that does not is the broken link.

// Sealed is a stored record with its place in its session's chain.
type Sealed struct {
	Message
	RecordedAt    time.Time // when Zimmer stored it
	Seq           int64     // 1 for the first record of its session
	ContentDigest string
	PrevDigest    string // "" for the first record
	Digest        string
}

// canonical is the record's content exactly as its digest covers it: fixed keys in a fixed
// order, times in UTC at full precision.
type canonical struct {
	ID             int64  `json:"id"`
	SessionID      int64  `json:"session_id"`
	Author         string `json:"author"`
	Channel        string `json:"channel"`
	Content        string `json:"content"`
	OccurredAt     string `json:"occurred_at"`
	EntryPoint     string `json:"entry_point"`
	SlackUserID    string `json:"slack_user_id"`
	SlackChannel   string `json:"slack_channel"`
	SlackPermalink string `json:"slack_permalink"`
	RecordedAt     string `json:"recorded_at"`
}

// ContentDigest is the SHA-256 (hex) of a record's canonical content.
func ContentDigest(m Message, recordedAt time.Time) string {
	b, _ := json.Marshal(canonical{ID: m.ID, SessionID: m.SessionID, Author: m.Author, Channel: m.Channel,
		Content: m.Content, OccurredAt: m.OccurredAt.UTC().Format(time.RFC3339Nano), EntryPoint: m.EntryPoint,
		SlackUserID: m.SlackUserID, SlackChannel: m.SlackChannel, SlackPermalink: m.SlackPermalink,
		RecordedAt: recordedAt.UTC().Format(time.RFC3339Nano)}) // a struct of strings and ints cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// LinkDigest is a record's own digest: its content digest chained to the previous record's.
func LinkDigest(prev, content string) string {
	sum := sha256.Sum256([]byte(prev + "\n" + content))
	return hex.EncodeToString(sum[:])
}

// Seal places m (with its id) after prev in its session's chain; prev is nil for the first.
func Seal(m Message, recordedAt time.Time, prev *Sealed) Sealed {
	s := Sealed{Message: m, RecordedAt: recordedAt, Seq: 1, ContentDigest: ContentDigest(m, recordedAt)}
	if prev != nil {
		s.Seq, s.PrevDigest = prev.Seq+1, prev.Digest
	}
	s.Digest = LinkDigest(s.PrevDigest, s.ContentDigest)
	return s
}

// Break is the first link of a chain that does not recompute.
type Break struct {
	RecordID  int64
	SessionID int64
	Seq       int64
	Reason    string
}

func (b *Break) Error() string {
	if b.RecordID == 0 {
		return fmt.Sprintf("session #%d: %s", b.SessionID, b.Reason)
	}
	return fmt.Sprintf("human-message record #%d (session #%d, link %d): %s", b.RecordID, b.SessionID, b.Seq, b.Reason)
}

// VerifyChain recomputes one session's chain, records in stored order (by seq), and returns the
// first broken link, or nil when every link holds. headLen and headDigest are the chain head
// stored beside the records (0 and "" when there is none), which catches records taken off its end.
func VerifyChain(sessionID int64, records []Sealed, headLen int64, headDigest string) *Break {
	prev := ""
	for i, r := range records {
		broken := func(reason string) *Break {
			return &Break{RecordID: r.ID, SessionID: sessionID, Seq: r.Seq, Reason: reason}
		}
		switch want := int64(i + 1); {
		case r.Digest == "":
			return broken("the record carries no digest: it was not written by Zimmer's chained insert")
		case r.Seq != want:
			return broken(fmt.Sprintf("it is link %d, but link %d is next: a record before it is missing", r.Seq, want))
		case r.PrevDigest != prev:
			return broken("its previous-record digest does not match the record before it")
		case ContentDigest(r.Message, r.RecordedAt) != r.ContentDigest:
			return broken("its content no longer matches its digest: the record was changed after it was written")
		case LinkDigest(r.PrevDigest, r.ContentDigest) != r.Digest:
			return broken("its own digest does not chain its content to the record before it")
		}
		prev = r.Digest
	}
	if int64(len(records)) != headLen || prev != headDigest {
		b := &Break{SessionID: sessionID, Reason: fmt.Sprintf("the session's chain head records %d link(s) ending in another digest: a record after this one is missing", headLen)}
		if len(records) == 0 {
			b.Reason = fmt.Sprintf("the session has no records, but its chain head records %d link(s): they are missing", headLen)
		} else {
			b.RecordID, b.Seq = records[len(records)-1].ID, records[len(records)-1].Seq
		}
		return b
	}
	return nil
}
