package judge

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/tool"
	"studio/internal/ts"
)

// Note is a standing note (SPEC §2): a sentence the house gave once that
// rides with every develop in its scope until it is retired.
type Note struct {
	ID             string   `json:"id"`
	Text           string   `json:"text"`
	ScopeTools     []string `json:"scopeTools" description:"Tool slugs the note rides with; empty = every tool."`
	ScopePhrase    string   `json:"scopePhrase" description:"The scope in words, e.g. \"packshot develops\" or \"every develop\"."`
	EvidenceJobIDs []string `json:"evidenceJobIds" description:"The frames whose directions the note was made from."`
	ActiveFrom     ts.Time  `json:"activeFrom"`
	RetiredAt      *ts.Time `json:"retiredAt"`

	HouseID string `json:"-"`
	UserID  string `json:"-"`
	Norm    string `json:"-"` // the text normalised: what "the same sentence" compares
}

// InForce reports whether the note rides with develops.
func (n Note) InForce() bool { return n.RetiredAt == nil }

// Covers reports whether the note's scope takes in tool.
func (n Note) Covers(tool string) bool {
	return len(n.ScopeTools) == 0 || slices.Contains(n.ScopeTools, tool)
}

// MaxNoteText is the longest note or direction, in characters.
const MaxNoteText = 500

// Codes of the standing notes.
var (
	ErrTextRequired    = errs.New(errs.KindInvalid, "TEXT_REQUIRED", "A standing note needs its text.")
	ErrTextTooLong     = errs.With(errs.Msg(errs.BadBody, "A note or a direction is at most 500 characters."), "max", MaxNoteText)
	ErrBadEvidence     = errs.New(errs.KindInvalid, "BAD_EVIDENCE", "evidenceJobIds must name frames of this house.")
	ErrNothingToChange = errs.New(errs.KindInvalid, "NOTHING_TO_CHANGE", "The patch changes nothing.")
	ErrScopeWidening   = errs.New(errs.KindInvalid, "SCOPE_WIDENING", "A note's scope may only be narrowed to a part of it; make a new note for a wider one.")
)

// Normalise is what "the same sentence" and "the same direction" compare:
// lower case, runs of space made one, surrounding quotes and closing
// punctuation (. ! ; ,) dropped. "Keep the collar crisp." and "keep the
// collar  crisp" are the same; "keep the collar sharp" is not.
func Normalise(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	s = strings.Trim(s, "\"'“”‘’ ")
	s = strings.TrimRightFunc(s, func(r rune) bool { return r == '.' || r == '!' || r == ';' || r == ',' || unicode.IsSpace(r) })
	return s
}

// Tools are the tool slugs a scope may name: every develop tool, the
// lookbook's frames included.
func Tools() []string { return tool.Names() }

// scope sorts and de-duplicates tools and checks each is a tool.
func scope(tools []string) ([]string, error) {
	out := []string{}
	for _, t := range tools {
		t = strings.TrimSpace(t)
		if !slices.Contains(Tools(), t) {
			return nil, errs.With(errs.Msg(job.ErrUnknownTool, "scopeTools names a tool that does not exist: "+clip(t, 40)+"."), "legal", Tools())
		}
		out = append(out, t)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Phrase says a scope in words.
func Phrase(tools []string) string {
	switch len(tools) {
	case 0:
		return "every develop"
	case 1:
		return tools[0] + " develops"
	}
	return strings.Join(tools[:len(tools)-1], ", ") + " and " + tools[len(tools)-1] + " develops"
}

// text checks a note's or a direction's words: trimmed, at most
// MaxNoteText characters.
func text(s string) (string, error) {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > MaxNoteText {
		return "", ErrTextTooLong
	}
	return s, nil
}

// NoteRequest is the body of POST /api/toolkit/standing-notes.
type NoteRequest struct {
	Text           string   `json:"text" required:"true" maxLength:"500"`
	ScopeTools     []string `json:"scopeTools,omitempty" description:"Tool slugs; empty or absent = every tool. Ignored when evidenceJobIds is given: the scope is then those frames' tools."`
	EvidenceJobIDs []string `json:"evidenceJobIds,omitempty" maxItems:"50" description:"Frames of this house whose directions the note is made from."`
}

// NotePatch is the body of PATCH /api/toolkit/standing-notes/{id}.
type NotePatch struct {
	Retire     *bool     `json:"retire,omitempty" description:"true retires the note; it stops riding with develops."`
	ScopeTools *[]string `json:"scopeTools,omitempty" description:"A part of the note's scope (narrowing only)."`
}

// NoteAnswer is the answer to a create or a patch.
type NoteAnswer struct {
	Note Note `json:"note"`
}

// NotesBody lists standing notes.
type NotesBody struct {
	Notes []Note `json:"notes"`
}
