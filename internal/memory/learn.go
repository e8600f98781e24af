package memory

import (
	"context"

	"github.com/google/uuid"

	"studio/internal/auth"
)

// How the studio learns (issue 15, "memory that learns"). When a person's
// chat turn applies a choice the studio can learn (a background preset, an
// aesthetic, a quality tier, an output destination), it records an
// observation: a personal memory (scope user: one person's habit is not the
// house's rule, and a viewer may talk but not write the house's memory) of
// kind observed and class preference. The first turn creates it as a
// candidate, which is listed but never retrieved; each further distinct
// turn that makes the same choice counts one more evidence, and at
// PromoteAfter turns the candidate becomes active and reaches the
// assistant (and develops, where the house enables memory there) like any
// memory in force. Its confidence grows with the evidence (Grade).
//
// A person steers it with the memory routes: DELETE retires a candidate or
// an active observation, and a correction (replacesMemoryId on an active
// one) supersedes it with what they state; either way the same choice is
// never learned again. When a choice is promoted in a slot (say the
// aesthetic) where another observed choice was active, the older one is
// superseded by the newer. What a person states (kind told) is never
// changed by an observation; the assistant is told that what is stated,
// and what the director says in the turn, win over what was observed.
const (
	// PromoteAfter is how many distinct turns make a candidate active.
	PromoteAfter = 3
	// maxConfidence caps an observation's confidence below a told
	// memory's 1.
	maxConfidence = 0.95
)

// Observation is one learnable choice of a turn.
type Observation struct {
	Slot      string // what kind of choice: the op, e.g. set-aesthetic
	Key       string // the choice within its slot, e.g. set-aesthetic=editorial
	Statement string // how the memory reads, e.g. "Prefers the editorial aesthetic."
}

// Grade is an observation's confidence and status after evidence distinct
// turns: n/(n+1), at most 0.95; a candidate until PromoteAfter turns.
func Grade(evidence int) (confidence float64, status string) {
	confidence = min(float64(evidence)/float64(evidence+1), maxConfidence)
	if evidence >= PromoteAfter {
		return confidence, StatusActive
	}
	return confidence, StatusCandidate
}

// Observe records the caller's observations of one kept turn: call it once
// per distinct turn (a turn that was not kept is no evidence). It returns
// the memories that learned something, in the observations' order.
func (s *Service) Observe(ctx context.Context, p auth.Principal, obs []Observation) ([]Memory, error) {
	var out []Memory
	for _, o := range obs {
		m, ok, err := s.store.ObserveMemory(ctx, p.HouseID, p.UserID, o, uuid.Must(uuid.NewV7()).String(), s.now())
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}
