package sqlstore

import (
	"context"
	"time"

	"studio/internal/onboarding"
)

// OnboardingFacts reads which first steps the house has taken, ever (a
// deleted upload or a revoked key still counts as done).
func (db *DB) OnboardingFacts(ctx context.Context, house string) (map[string]bool, error) {
	var up, dev, look, share, key, team int
	err := db.read().QueryRow(ctx, `SELECT
		(SELECT COUNT(*) FROM (SELECT 1 FROM assets WHERE organization_id = ? AND tool IS NULL LIMIT 1) x),
		(SELECT COUNT(*) FROM (SELECT 1 FROM jobs WHERE organization_id = ? LIMIT 1) x),
		(SELECT COUNT(*) FROM (SELECT 1 FROM looks WHERE organization_id = ? LIMIT 1) x),
		(SELECT COUNT(*) FROM (SELECT 1 FROM shares WHERE organization_id = ? LIMIT 1) x),
		(SELECT COUNT(*) FROM (SELECT 1 FROM api_keys WHERE organization_id = ? LIMIT 1) x),
		(SELECT COUNT(*) FROM (SELECT 1 FROM seats WHERE organization_id = ? LIMIT 2) x)
			+ (SELECT COUNT(*) FROM (SELECT 1 FROM seat_invitations WHERE organization_id = ? LIMIT 1) x)`,
		house, house, house, house, house, house, house).Scan(&up, &dev, &look, &share, &key, &team)
	if err != nil {
		return nil, err
	}
	return map[string]bool{onboarding.FirstUpload: up > 0, onboarding.FirstDevelop: dev > 0, onboarding.FirstLook: look > 0,
		onboarding.FirstShare: share > 0, onboarding.KeyMinted: key > 0, onboarding.TeammateInvited: team > 1}, nil
}

// OnboardingMarks returns the steps the user marked complete in the house.
func (db *DB) OnboardingMarks(ctx context.Context, house, user string) (map[string]time.Time, error) {
	rows, err := db.read().Query(ctx, `SELECT step, created_at FROM onboarding_marks WHERE organization_id = ? AND user_id = ?`, house, user)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var step string
		var at int64
		if err := rows.Scan(&step, &at); err != nil {
			return nil, err
		}
		out[step] = msTime(at)
	}
	return out, rows.Err()
}

// MarkOnboarding records a user's mark; a repeat keeps the first.
func (db *DB) MarkOnboarding(ctx context.Context, house, user, step string, at time.Time) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO onboarding_marks (organization_id, user_id, step, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id, user_id, step) DO NOTHING`, house, user, step, at.UnixMilli())
	return err
}
