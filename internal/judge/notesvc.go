package judge

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ts"
)

// NoteStore is what standing notes need from persistence.
type NoteStore interface {
	// Notes returns the house's notes, newest first, retired included.
	Notes(ctx context.Context, house string) ([]Note, error)
	Note(ctx context.Context, house, id string) (Note, error)
	// InsertNote writes n unless a note of the same sentence (norm) stands
	// on the same scope: then it returns that one, created false.
	InsertNote(ctx context.Context, n Note) (stored Note, created bool, err error)
	// UpdateNote applies edit to the note in one transaction and stores it;
	// when the edit narrows it onto the scope of a standing note of the same
	// sentence, the edited note retires into that one, which is returned.
	UpdateNote(ctx context.Context, house, id string, edit func(*Note) error) (Note, error)
}

// Notes lists the house's standing notes, newest first, retired included.
func (s *Service) Notes(ctx context.Context, p auth.Principal) ([]Note, error) {
	return s.store.Notes(ctx, p.HouseID)
}

// CreateNote sets a standing note. With evidence, the scope is re-derived
// from those frames' tools (scopeTools is ignored); without, scopeTools is
// the scope and empty means every tool (only this door makes a global
// note). The same sentence already standing on the same scope answers that
// note, created false.
func (s *Service) CreateNote(ctx context.Context, p auth.Principal, in NoteRequest) (Note, bool, error) {
	if err := p.MayEdit(); err != nil {
		return Note{}, false, err
	}
	said, err := text(in.Text)
	if err != nil {
		return Note{}, false, err
	}
	if said == "" {
		return Note{}, false, ErrTextRequired
	}
	if len(in.EvidenceJobIDs) > MaxBatch {
		return Note{}, false, errs.With(errs.Msg(ErrBadEvidence, "evidenceJobIds names at most 50 frames."), "max", MaxBatch)
	}
	tools := in.ScopeTools
	evidence := []string{}
	if len(in.EvidenceJobIDs) > 0 {
		tools = nil
		for _, id := range in.EvidenceJobIDs {
			id = strings.TrimSpace(id)
			if slices.Contains(evidence, id) {
				continue
			}
			j, err := s.store.Job(ctx, p.HouseID, id)
			if errors.Is(err, errs.NotFound) {
				return Note{}, false, ErrBadEvidence
			}
			if err != nil {
				return Note{}, false, err
			}
			evidence = append(evidence, j.ID)
			tools = append(tools, j.Tool)
		}
	}
	sc, err := scope(tools)
	if err != nil {
		return Note{}, false, err
	}
	now := s.now()
	n := Note{ID: uuid.Must(uuid.NewV7()).String(), Text: said, ScopeTools: sc, ScopePhrase: Phrase(sc), EvidenceJobIDs: evidence,
		ActiveFrom: ts.Of(now), HouseID: p.HouseID, UserID: p.UserID, Norm: Normalise(said)}
	return s.store.InsertNote(ctx, n)
}

// PatchNote retires a note or narrows its scope to a part of it. A patch
// that changes nothing, or that would widen the scope, is refused.
func (s *Service) PatchNote(ctx context.Context, p auth.Principal, id string, in NotePatch) (Note, error) {
	if err := p.MayEdit(); err != nil {
		return Note{}, err
	}
	var narrow []string
	if in.ScopeTools != nil {
		var err error
		if narrow, err = scope(*in.ScopeTools); err != nil {
			return Note{}, err
		}
	}
	retire := in.Retire != nil && *in.Retire
	if !retire && in.ScopeTools == nil {
		return Note{}, errs.Msg(ErrNothingToChange, "Give retire: true or a narrower scopeTools.")
	}
	now := s.now()
	return s.store.UpdateNote(ctx, p.HouseID, id, func(n *Note) error {
		if !n.InForce() {
			return errs.Msg(ErrNothingToChange, "The note is retired already.")
		}
		changed := false
		if in.ScopeTools != nil {
			switch {
			case len(narrow) == 0 && len(n.ScopeTools) == 0, slices.Equal(narrow, n.ScopeTools):
			case len(narrow) == 0:
				return errs.Msg(ErrScopeWidening, "An empty scopeTools would make the note global; make a new note for that.")
			case len(n.ScopeTools) > 0 && !coversAll(*n, narrow):
				return ErrScopeWidening
			default:
				n.ScopeTools, n.ScopePhrase, changed = narrow, Phrase(narrow), true
			}
		}
		if retire {
			at := ts.Of(now)
			n.RetiredAt, changed = &at, true
		}
		if !changed {
			return ErrNothingToChange
		}
		return nil
	})
}

// NotesSource is the standing notes' part of every develop's direction:
// the notes in force whose scope covers the job's tool, oldest first.
func (s *Service) NotesSource() job.Source {
	return job.SourceFunc(func(ctx context.Context, j job.Job) ([]job.Part, error) {
		notes, err := s.store.Notes(ctx, j.HouseID)
		if err != nil {
			return nil, err
		}
		var out []job.Part
		for i := len(notes) - 1; i >= 0; i-- { // newest first in the store
			if n := notes[i]; n.InForce() && n.Covers(j.Tool) {
				out = append(out, job.Part{Rank: job.RankNotes, Source: "standing-note", Text: n.Text})
			}
		}
		return out, nil
	})
}
