// Package memory is what the studio remembers (SPEC §2 Memory, §3,
// §4.13): statements a house shares and statements a user keeps for
// themself (scope house or user, DECISIONS §1b). A correction appends a
// successor and supersedes its predecessor; retiring stops retrieval and
// keeps the row. Memories in force (active) reach the assistant's turns.
package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Scopes, classes and statuses (SPEC §2, DECISIONS §1b, §8).
const (
	ScopeHouse = "house"
	ScopeUser  = "user"

	StatusCandidate  = "candidate"
	StatusActive     = "active"
	StatusRetired    = "retired"
	StatusSuperseded = "superseded"

	KindTold     = "told"     // stated by a person through the API
	KindObserved = "observed" // learned from the choices a person's chat turns applied (learn.go)
)

// Classes are the memory classes of SPEC §2.
var Classes = []string{"fact", "preference", "lesson", "playbook", "outcome_pattern", "image_reading"}

// MaxStatement bounds a statement's length.
const MaxStatement = 1000

// Codes raised by memories.
var (
	ErrBadStatement = errs.New(errs.KindInvalid, "BAD_STATEMENT", "A memory needs a statement of 1 to 1000 characters.")
	ErrBadScope     = errs.New(errs.KindInvalid, "BAD_SCOPE", "scope must be house or user.")
	ErrBadClass     = errs.New(errs.KindInvalid, "BAD_MEMORY_CLASS", "memoryClass must be one of the legal classes.")
)

// Memory is one remembered statement (SPEC §2).
type Memory struct {
	ID            string  `json:"id"`
	Scope         string  `json:"scope" enum:"house,user"`
	MemoryClass   string  `json:"memoryClass" enum:"fact,preference,lesson,playbook,outcome_pattern,image_reading"`
	Kind          string  `json:"kind" enum:"told,observed" description:"How the studio came to know it: told (a person said so) or observed (the same choice applied by the person's chat turns; a candidate until PromoteAfter distinct turns made it)."`
	Statement     string  `json:"statement"`
	Confidence    float64 `json:"confidence"`
	Status        string  `json:"status" enum:"candidate,active,retired,superseded" description:"candidate: observed, not yet trusted, never retrieved; active: in force; retired or superseded: history."`
	EvidenceCount int     `json:"evidenceCount"`
	SupersedesID  *string `json:"supersedesId"`
	Projected     bool    `json:"projected" description:"True when the memory is projected into develop prompts."`
	CreatedAt     ts.Time `json:"createdAt"`
	UpdatedAt     ts.Time `json:"updatedAt"`

	UserID string `json:"-"` // the author (and, for a user-scope memory, its owner)
}

// WriteRequest is the body of POST /api/account/memory.
type WriteRequest struct {
	Statement        *string `json:"statement" required:"true" minLength:"1" maxLength:"1000"`
	Scope            *string `json:"scope" required:"true" enum:"house,user"`
	MemoryClass      *string `json:"memoryClass" required:"true" enum:"fact,preference,lesson,playbook,outcome_pattern,image_reading"`
	ReplacesMemoryID *string `json:"replacesMemoryId,omitempty" description:"The active memory this statement corrects; it becomes superseded."`
}

// Validate checks the statement, scope and class.
func (r *WriteRequest) Validate() error {
	if r.Statement == nil || r.Scope == nil || r.MemoryClass == nil {
		return errs.Msg(errs.BadBody, "statement, scope and memoryClass are required.")
	}
	*r.Statement = strings.TrimSpace(*r.Statement)
	if *r.Statement == "" || len(*r.Statement) > MaxStatement {
		return ErrBadStatement
	}
	if *r.Scope != ScopeHouse && *r.Scope != ScopeUser {
		return errs.With(ErrBadScope, "legal", []string{ScopeHouse, ScopeUser})
	}
	if !slices.Contains(Classes, *r.MemoryClass) {
		return errs.With(ErrBadClass, "legal", Classes)
	}
	return nil
}

// Store is what memories need from persistence. Every method names the
// house; user is the caller, whose personal memories are in scope.
type Store interface {
	InsertMemory(ctx context.Context, house string, m Memory) error
	// SupersedeMemory marks the active memory id (house-shared, or the
	// user's own) superseded and inserts its successor, in one
	// transaction; NOT_FOUND when id is not active in scope.
	SupersedeMemory(ctx context.Context, house, user, id string, successor Memory) error
	// RetireMemory marks the active or candidate memory retired; NOT_FOUND otherwise.
	RetireMemory(ctx context.Context, house, user, id string, at time.Time) (Memory, error)
	GetMemory(ctx context.Context, house, user, id string) (Memory, error)
	// Memories lists the house's memories and the user's own, newest
	// first; only active ones when active is set.
	Memories(ctx context.Context, house, user string, active bool) ([]Memory, error)
	// ObserveMemory counts one more distinct turn of evidence for the
	// user's observation o (learn.go), creating its candidate (id fresh)
	// on the first; grade sets confidence and status from the evidence.
	// ok is false when the observation's memory was retired or superseded:
	// nothing is learned then.
	ObserveMemory(ctx context.Context, house, user string, o Observation, fresh string, at time.Time) (m Memory, ok bool, err error)
}

// Service runs the memory use cases.
type Service struct {
	store    Store
	settings SettingsStore
	now      func() time.Time
}

// NewService returns the memory service.
func NewService(store interface {
	Store
	SettingsStore
}, now func() time.Time) *Service {
	return &Service{store: store, settings: store, now: now}
}

// List returns the house's memories and the caller's own, every status,
// newest first.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Memory, error) {
	ms, err := s.store.Memories(ctx, p.HouseID, p.UserID, false)
	if err != nil {
		return nil, err
	}
	return s.project(ctx, p.HouseID, ms)
}

// InForce returns the memories that reach the assistant: active, the
// house's and the caller's own, newest first.
func (s *Service) InForce(ctx context.Context, p auth.Principal) ([]Memory, error) {
	return s.store.Memories(ctx, p.HouseID, p.UserID, true)
}

// canWrite: a viewer keeps personal memories but may not write the house's.
func canWrite(p auth.Principal, scope string) error {
	if scope == ScopeHouse {
		return p.MayEdit()
	}
	return nil
}

// Write records a new statement (created true) or a correction of an active
// memory in scope (created false): the successor is appended and its
// predecessor superseded. The successor keeps the predecessor's scope.
func (s *Service) Write(ctx context.Context, p auth.Principal, in WriteRequest) (m Memory, created bool, err error) {
	now := ts.Of(s.now())
	m = Memory{ID: uuid.Must(uuid.NewV7()).String(), Scope: *in.Scope, MemoryClass: *in.MemoryClass, Kind: KindTold,
		Statement: *in.Statement, Confidence: 1, Status: StatusActive, EvidenceCount: 1, CreatedAt: now, UpdatedAt: now, UserID: p.UserID}
	if err := canWrite(p, m.Scope); err != nil {
		return Memory{}, false, err
	}
	if in.ReplacesMemoryID == nil {
		if err := s.store.InsertMemory(ctx, p.HouseID, m); err != nil {
			return Memory{}, false, err
		}
		return m, true, nil
	}
	prev, err := s.store.GetMemory(ctx, p.HouseID, p.UserID, *in.ReplacesMemoryID)
	if err != nil {
		return Memory{}, false, err
	}
	if prev.Status != StatusActive || prev.Scope != m.Scope {
		return Memory{}, false, errs.NotFound
	}
	if err := canWrite(p, prev.Scope); err != nil {
		return Memory{}, false, err
	}
	m.SupersedesID = &prev.ID
	m.EvidenceCount = prev.EvidenceCount + 1
	if err := s.store.SupersedeMemory(ctx, p.HouseID, p.UserID, prev.ID, m); err != nil {
		return Memory{}, false, err
	}
	return m, false, nil
}

// Retire stops an active memory in scope from being retrieved, or a
// candidate from ever being promoted; its row stays.
func (s *Service) Retire(ctx context.Context, p auth.Principal, id string) (Memory, error) {
	m, err := s.store.GetMemory(ctx, p.HouseID, p.UserID, id)
	if err != nil {
		return Memory{}, err
	}
	if m.Status != StatusActive && m.Status != StatusCandidate {
		return Memory{}, errs.NotFound
	}
	if err := canWrite(p, m.Scope); err != nil {
		return Memory{}, err
	}
	return s.store.RetireMemory(ctx, p.HouseID, p.UserID, id, s.now())
}
