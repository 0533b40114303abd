package provenance

import (
	"regexp"
	"strings"
)

var (
	// blockTag matches an opening or closing tag of any reserved block, attributes and all; an
	// unterminated one (`</goal` at the end of a note) counts too, since a reader may take it
	// for the real thing.
	blockTag = regexp.MustCompile(`(?i)</?\s*(` + strings.Join(ReservedTags, "|") + `)\b[^<>]*>?`)
	fence    = regexp.MustCompile("`{3,}")
	// The replacers are built once: building one per value was most of an outline's cost.
	angles  = strings.NewReplacer("<", "‹", ">", "›")
	oneLine = strings.NewReplacer("<", "‹", ">", "›", `"`, "＂", "\n", "", "\r", "")
)

// NeutralizeTags defuses every tag that could close, open or imitate one of Zimmer's prompt
// blocks (ReservedTags) by swapping its angle brackets for look-alikes; nothing is deleted.
func NeutralizeTags(s string) string {
	if !strings.Contains(s, "<") { // every tag starts with one; most values have none
		return s
	}
	return blockTag.ReplaceAllStringFunc(s, func(tag string) string {
		return angles.Replace(tag)
	})
}

// OneLine makes an untrusted value safe inside a single line or attribute: it can never start a
// line, so it can never open a bullet, heading or tag.
func OneLine(s string) string {
	for i := range len(s) {
		if oneLineBytes[s[i]] {
			return oneLine.Replace(NeutralizeTags(s))
		}
	}
	return s // most values (every id, status and title of a hierarchy) need nothing
}

// oneLineBytes are the bytes OneLine replaces; a tag starts with one of them too.
var oneLineBytes = [256]bool{'<': true, '>': true, '"': true, '\n': true, '\r': true}

// Fenced makes an untrusted value safe inside a ``` fence: no run of backticks can close it.
func Fenced(s string) string {
	s = NeutralizeTags(s)
	if !strings.Contains(s, "```") { // the shortest run that closes a fence; most values have none
		return s
	}
	return fence.ReplaceAllStringFunc(s, func(run string) string {
		return strings.Repeat("ˋ", len(run))
	})
}
