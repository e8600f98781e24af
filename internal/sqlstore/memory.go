package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"studio/internal/memory"
	"studio/internal/ts"
)

// inScope is the condition that keeps a memory in the caller's scope: the
// house's, or the caller's own.
const inScope = `organization_id = ? AND (scope = 'house' OR user_id = ?)`

func insertMemory(ctx context.Context, tx *Tx, house string, m memory.Memory) error {
	owner := ""
	if m.Scope == memory.ScopeUser {
		owner = m.UserID
	}
	_, err := tx.Exec(ctx, `INSERT INTO memories (id, organization_id, user_id, created_by_user_id, scope, memory_class, kind, statement, confidence,
		status, evidence_count, supersedes_id, projected, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		m.ID, house, nullStr(owner), nullStr(m.UserID), m.Scope, m.MemoryClass, m.Kind, m.Statement, m.Confidence, m.Status,
		m.EvidenceCount, nullPtr(m.SupersedesID), b2i(m.Projected), m.CreatedAt.UnixMilli(), m.UpdatedAt.UnixMilli())
	return err
}

// InsertMemory writes a memory of the house.
func (db *DB) InsertMemory(ctx context.Context, house string, m memory.Memory) error {
	return insertMemory(ctx, db.writer(), house, m)
}

// SupersedeMemory marks the active memory id in scope superseded and
// inserts its successor, in one transaction; NOT_FOUND when id is not
// active in scope.
func (db *DB) SupersedeMemory(ctx context.Context, house, user, id string, successor memory.Memory) error {
	return db.write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(ctx, `UPDATE memories SET status = 'superseded', updated_at = ? WHERE `+inScope+` AND id = ? AND status = 'active'`,
			successor.CreatedAt.UnixMilli(), house, user, id)
		if err != nil {
			return err
		}
		if err := mustAffect(res); err != nil {
			return err
		}
		return insertMemory(ctx, tx, house, successor)
	})
}

// RetireMemory marks the active or candidate memory id in scope retired.
func (db *DB) RetireMemory(ctx context.Context, house, user, id string, at time.Time) (memory.Memory, error) {
	res, err := db.writer().Exec(ctx, `UPDATE memories SET status = 'retired', updated_at = ? WHERE `+inScope+` AND id = ? AND status IN ('active', 'candidate')`,
		at.UnixMilli(), house, user, id)
	if err != nil {
		return memory.Memory{}, err
	}
	if err := mustAffect(res); err != nil {
		return memory.Memory{}, err
	}
	return db.GetMemory(ctx, house, user, id)
}

// ObserveMemory counts one more turn of evidence for the user's
// observation o, in one transaction: the first creates its candidate
// (id fresh), memory.Grade sets confidence and status, and a promotion
// supersedes the active observation of another choice in the same slot.
// ok is false when the observation's row was retired or superseded.
func (db *DB) ObserveMemory(ctx context.Context, house, user string, o memory.Observation, fresh string, at time.Time) (memory.Memory, bool, error) {
	var m memory.Memory
	var ok bool
	err := db.write(ctx, func(tx *Tx) error {
		ms := at.UnixMilli()
		// A new observation starts at no evidence; the update below counts this turn.
		if _, err := tx.Exec(ctx, `INSERT INTO memories (id, organization_id, user_id, created_by_user_id, scope, memory_class, kind, statement,
			confidence, status, evidence_count, projected, created_at, updated_at, observed_slot, observed_key)
			VALUES (?, ?, ?, ?, 'user', 'preference', ?, ?, 0, 'candidate', 0, 0, ?, ?, ?, ?)
			ON CONFLICT (organization_id, user_id, observed_key) DO NOTHING`,
			fresh, house, user, user, memory.KindObserved, o.Statement, ms, ms, o.Slot, o.Key); err != nil {
			return err
		}
		res, err := tx.Exec(ctx, `UPDATE memories SET evidence_count = evidence_count + 1, updated_at = ?
			WHERE organization_id = ? AND user_id = ? AND observed_key = ? AND status IN ('candidate', 'active')`, ms, house, user, o.Key)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // retired or superseded: the person said no
		}
		if m, err = scanMemory(tx.QueryRow(ctx, `SELECT `+memoryCols+` FROM memories WHERE organization_id = ? AND user_id = ? AND observed_key = ?`,
			house, user, o.Key)); err != nil {
			return err
		}
		confidence, status := memory.Grade(m.EvidenceCount)
		if m.Status == memory.StatusCandidate && status == memory.StatusActive {
			var older string
			err := tx.QueryRow(ctx, `SELECT id FROM memories WHERE organization_id = ? AND user_id = ? AND observed_slot = ? AND observed_key <> ?
				AND status = 'active' ORDER BY created_at DESC, id DESC LIMIT 1`, house, user, o.Slot, o.Key).Scan(&older)
			switch {
			case err == nil:
				if _, err := tx.Exec(ctx, `UPDATE memories SET status = 'superseded', updated_at = ? WHERE organization_id = ? AND id = ?`,
					ms, house, older); err != nil {
					return err
				}
				m.SupersedesID = &older
			case !errors.Is(err, sql.ErrNoRows):
				return err
			}
		}
		m.Confidence, m.Status, m.UpdatedAt.Time = confidence, status, msTime(ms)
		if _, err := tx.Exec(ctx, `UPDATE memories SET confidence = ?, status = ?, supersedes_id = ? WHERE organization_id = ? AND id = ?`,
			confidence, status, nullPtr(m.SupersedesID), house, m.ID); err != nil {
			return err
		}
		ok = true
		return nil
	})
	return m, ok, err
}

const memoryCols = `id, created_by_user_id, scope, memory_class, kind, statement, confidence, status, evidence_count, supersedes_id, projected, created_at, updated_at`

func scanMemory(row interface{ Scan(...any) error }) (memory.Memory, error) {
	var m memory.Memory
	var user, supersedes sql.NullString
	var projected int
	var created, updated int64
	if err := row.Scan(&m.ID, &user, &m.Scope, &m.MemoryClass, &m.Kind, &m.Statement, &m.Confidence, &m.Status, &m.EvidenceCount,
		&supersedes, &projected, &created, &updated); err != nil {
		return memory.Memory{}, notFound(err)
	}
	m.UserID, m.SupersedesID, m.Projected = user.String, strPtr(supersedes), projected != 0
	m.CreatedAt.Time, m.UpdatedAt.Time = msTime(created), msTime(updated)
	return m, nil
}

// GetMemory returns one memory in the caller's scope.
func (db *DB) GetMemory(ctx context.Context, house, user, id string) (memory.Memory, error) {
	return scanMemory(db.read().QueryRow(ctx, `SELECT `+memoryCols+` FROM memories WHERE `+inScope+` AND id = ?`, house, user, id))
}

// Memories lists the house's memories and the user's own, newest first
// (at most 1000); only active ones when active is set.
func (db *DB) Memories(ctx context.Context, house, user string, active bool) ([]memory.Memory, error) {
	q := `SELECT ` + memoryCols + ` FROM memories WHERE ` + inScope
	if active {
		q += ` AND status = 'active'`
	}
	rows, err := db.read().Query(ctx, q+` ORDER BY created_at DESC, id DESC LIMIT 1000`, house, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []memory.Memory{}
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MemorySettings reads the house's memory setting; no row reads as off.
func (db *DB) MemorySettings(ctx context.Context, house string) (memory.Settings, error) {
	var on int
	var at int64
	err := db.read().QueryRow(ctx, `SELECT develops, updated_at FROM memory_settings WHERE organization_id = ?`, house).Scan(&on, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return memory.Settings{}, nil
	} else if err != nil {
		return memory.Settings{}, err
	}
	t := ts.Of(msTime(at))
	return memory.Settings{DevelopsEnabled: on != 0, UpdatedAt: &t}, nil
}

// SetMemorySettings turns the house's memory in develops on or off.
func (db *DB) SetMemorySettings(ctx context.Context, house, user string, on bool, at time.Time) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO memory_settings (organization_id, develops, updated_by_user_id, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id) DO UPDATE SET develops = excluded.develops, updated_by_user_id = excluded.updated_by_user_id,
		updated_at = excluded.updated_at`, house, b2i(on), nullStr(user), at.UnixMilli())
	return err
}
