package memory

import (
	"context"
	"fmt"
	"strings"
	"time"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/ts"
)

// MaxProjected is how many memories at most ride one develop's prompt: the
// newest in force, so a long memory cannot crowd out the frame's own words.
const MaxProjected = 12

// Settings is the house's memory setting (GET and PATCH
// /api/account/memory/settings, an extension: SPEC names no route for it).
type Settings struct {
	DevelopsEnabled bool     `json:"developsEnabled" description:"When true, the memories in force (the house's and the submitting person's own, active) ride every develop's prompt, after the standing notes and before the frame's own words; each memory then reads projected: true. Off until an owner or admin turns it on."`
	UpdatedAt       *ts.Time `json:"updatedAt" description:"When it was last changed; null while never set."`
}

// SettingsRequest is the body of PATCH /api/account/memory/settings.
type SettingsRequest struct {
	DevelopsEnabled *bool `json:"developsEnabled" required:"true"`
}

// Validate checks the one field.
func (r *SettingsRequest) Validate() error {
	if r.DevelopsEnabled == nil {
		return errs.Msg(errs.BadBody, "developsEnabled is required (true or false).")
	}
	return nil
}

// SettingsStore keeps the house's setting.
type SettingsStore interface {
	MemorySettings(ctx context.Context, house string) (Settings, error)
	SetMemorySettings(ctx context.Context, house, user string, on bool, at time.Time) error
}

// Settings reads the house's memory setting.
func (s *Service) Settings(ctx context.Context, p auth.Principal) (Settings, error) {
	return s.settings.MemorySettings(ctx, p.HouseID)
}

// SetSettings turns the house's memory in develops on or off: an owner's
// or an admin's decision, as a brand clause's injection is the house's.
func (s *Service) SetSettings(ctx context.Context, p auth.Principal, in SettingsRequest) (Settings, error) {
	if err := p.Role.MayManage(); err != nil {
		return Settings{}, err
	}
	if err := s.settings.SetMemorySettings(ctx, p.HouseID, p.UserID, *in.DevelopsEnabled, s.now()); err != nil {
		return Settings{}, err
	}
	return s.settings.MemorySettings(ctx, p.HouseID)
}

// project marks the memories that reach develop prompts.
func (s *Service) project(ctx context.Context, house string, ms []Memory) ([]Memory, error) {
	set, err := s.settings.MemorySettings(ctx, house)
	if err != nil {
		return nil, err
	}
	n := 0
	for i := range ms {
		ms[i].Projected = set.DevelopsEnabled && ms[i].Status == StatusActive && n < MaxProjected
		if ms[i].Projected {
			n++
		}
	}
	return ms, nil
}

// Source is the develop director's source of memories (job.RankMemory).
// While the house has it on, the memories in force for the job (the
// house's, and the submitting person's own) ride its prompt, newest first,
// at most MaxProjected, one line each. A job whose author was erased
// carries the house's alone. Another house's memory, and another person's
// personal memory, never ride: the read names the job's house and user.
func (s *Service) Source() job.Source {
	return job.SourceFunc(func(ctx context.Context, j job.Job) ([]job.Part, error) {
		set, err := s.settings.MemorySettings(ctx, j.HouseID)
		if err != nil || !set.DevelopsEnabled {
			return nil, err
		}
		ms, err := s.store.Memories(ctx, j.HouseID, j.UserID, true)
		if err != nil {
			return nil, err
		}
		var parts []job.Part
		for _, m := range ms {
			if len(parts) == MaxProjected {
				break
			}
			who := "The house remembers"
			if m.Scope == ScopeUser {
				who = "The director remembers"
			}
			text := strings.TrimSuffix(strings.Join(strings.Fields(m.Statement), " "), ".")
			parts = append(parts, job.Part{Rank: job.RankMemory, Source: "memory", Text: fmt.Sprintf("%s (%s): %s.", who, m.MemoryClass, text)})
		}
		return parts, nil
	})
}
