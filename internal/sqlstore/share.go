package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"studio/internal/asset"
	"studio/internal/errs"
	"studio/internal/job"
	"studio/internal/notify"
	"studio/internal/share"
	"studio/internal/ts"
)

// ShareableAssets returns the house's live assets among ids, in the order
// of ids.
func (db *DB) ShareableAssets(ctx context.Context, house string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return []string{}, nil
	}
	in, args := inList(ids)
	rows, err := db.read().Query(ctx, `SELECT id FROM assets WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in,
		append([]any{house}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	live := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		live[id] = true
	}
	out := make([]string, 0, len(live))
	for _, id := range ids {
		if live[id] {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// InsertShare writes a link and its frames in one transaction.
func (db *DB) InsertShare(ctx context.Context, l share.Link, tokenHash, tokenHint string, email *string, createdAt time.Time,
	frames []string, notes map[string]string) error {
	return db.write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO shares (id, organization_id, created_by_user_id, token_hash, token_hint,
			recipient_label, email, message, frames, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			l.ID, l.HouseID, nullStr(l.UserID), tokenHash, tokenHint, nullPtr(l.RecipientLabel), nullPtr(email), nullPtr(l.Message),
			len(frames), l.ExpiresAt.UnixMilli(), createdAt.UnixMilli()); err != nil {
			return err
		}
		for i, id := range frames {
			if _, err := tx.Exec(ctx, `INSERT INTO share_frames (organization_id, share_id, i, asset_id, note) VALUES (?, ?, ?, ?, ?)`,
				l.HouseID, l.ID, i, id, nullStr(notes[id])); err != nil {
				return err
			}
		}
		return nil
	})
}

// verdictCounts are the read-time counts of a link's marks.
const verdictCounts = `
	(SELECT COUNT(*) FROM share_marks m WHERE m.share_id = s.id AND m.verdict = 'keep'),
	(SELECT COUNT(*) FROM share_marks m WHERE m.share_id = s.id AND m.verdict = 'pass')`

// ListShares lists the house's links, newest first, counted at read time.
func (db *DB) ListShares(ctx context.Context, house string) ([]share.Share, error) {
	rows, err := db.read().Query(ctx, `SELECT s.id, s.token_hint, s.recipient_label, s.email, s.frames, s.finished_at,
		s.expires_at, s.revoked_at, s.created_at,`+verdictCounts+`
		FROM shares s WHERE s.organization_id = ? ORDER BY s.created_at DESC, s.id DESC`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []share.Share{}
	for rows.Next() {
		var s share.Share
		var label, email sql.NullString
		var finished, revoked sql.NullInt64
		var expires, created int64
		if err := rows.Scan(&s.ID, &s.Token, &label, &email, &s.Frames, &finished, &expires, &revoked, &created,
			&s.Kept, &s.Passed); err != nil {
			return nil, err
		}
		s.RecipientLabel, s.Email = strPtr(label), strPtr(email)
		s.FinishedAt, s.RevokedAt = tsPtr(finished), tsPtr(revoked)
		s.ExpiresAt, s.CreatedAt = ts.Milli(expires), ts.Milli(created)
		s.Answered = s.Kept + s.Passed
		out = append(out, s)
	}
	return out, rows.Err()
}

// RevokeShare stamps revokedAt on a link of the house; the first stamp is kept.
func (db *DB) RevokeShare(ctx context.Context, house, id string, at time.Time) error {
	res, err := db.writer().Exec(ctx, `UPDATE shares SET revoked_at = COALESCE(revoked_at, ?) WHERE organization_id = ? AND id = ?`,
		at.UnixMilli(), house, id)
	if err != nil {
		return err
	}
	return mustAffect(res)
}

// LinkByHash finds a link of any house by its token's hash: the reviewer
// routes' one lookup, whose authority is the token.
func (db *DB) LinkByHash(ctx context.Context, hash string) (share.Link, error) {
	var l share.Link
	var minter, label, message sql.NullString
	var finished, revoked sql.NullInt64
	var expires int64
	err := db.read().QueryRow(ctx, `SELECT s.id, s.organization_id, o.name, s.created_by_user_id, s.recipient_label, s.message,
		s.frames, s.finished_at, s.expires_at, s.revoked_at
		FROM shares s JOIN organizations o ON o.id = s.organization_id WHERE s.token_hash = ?`, hash).
		Scan(&l.ID, &l.HouseID, &l.HouseName, &minter, &label, &message, &l.Frames, &finished, &expires, &revoked)
	if err != nil {
		return share.Link{}, notFound(err)
	}
	l.UserID = minter.String // "" once the minter erased their account
	l.RecipientLabel, l.Message = strPtr(label), strPtr(message)
	l.FinishedAt = tsPtr(finished)
	l.ExpiresAt = msTime(expires)
	if revoked.Valid {
		t := msTime(revoked.Int64)
		l.RevokedAt = &t
	}
	return l, nil
}

// ManifestFrames lists a link's frames whose assets are live, in order,
// with their marks.
func (db *DB) ManifestFrames(ctx context.Context, l share.Link) ([]share.Frame, error) {
	rows, err := db.read().Query(ctx, `SELECT f.i, a.name, f.note, a.width, a.height, m.verdict, m.note, m.drawings
		FROM share_frames f
		JOIN assets a ON a.organization_id = f.organization_id AND a.id = f.asset_id
		LEFT JOIN share_marks m ON m.share_id = f.share_id AND m.i = f.i
		WHERE f.organization_id = ? AND f.share_id = ? AND a.deleted_at IS NULL ORDER BY f.i`, l.HouseID, l.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []share.Frame{}
	for rows.Next() {
		var f share.Frame
		var note, verdict, markNote, drawings sql.NullString
		if err := rows.Scan(&f.I, &f.Name, &note, &f.W, &f.H, &verdict, &markNote, &drawings); err != nil {
			return nil, err
		}
		f.Note, f.MarkNote = strPtr(note), strPtr(markNote)
		f.Mark = verdictPtr(verdict)
		if f.Drawings, err = readDrawings(drawings); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func verdictPtr(v sql.NullString) *share.Verdict {
	if !v.Valid {
		return nil
	}
	x := share.Verdict(v.String)
	return &x
}

func readDrawings(v sql.NullString) ([]share.Drawing, error) {
	out := []share.Drawing{}
	if !v.Valid || v.String == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(v.String), &out); err != nil {
		return nil, fmt.Errorf("share drawings: %w", err)
	}
	return out, nil
}

// FrameFile describes the bytes of frame i of a link while its asset is live.
func (db *DB) FrameFile(ctx context.Context, l share.Link, i int) (asset.File, error) {
	f := asset.File{HouseID: l.HouseID}
	var created int64
	err := db.read().QueryRow(ctx, `SELECT a.id, a.blob_key, a.mime, a.sha256, a.size_bytes, a.created_at
		FROM share_frames f JOIN assets a ON a.organization_id = f.organization_id AND a.id = f.asset_id
		WHERE f.organization_id = ? AND f.share_id = ? AND f.i = ? AND a.deleted_at IS NULL`, l.HouseID, l.ID, i).
		Scan(&f.ID, &f.BlobKey, &f.Mime, &f.ETag, &f.Size, &created)
	if err != nil {
		return asset.File{}, notFound(err)
	}
	f.ETag = `"` + f.ETag + `"`
	f.CreatedAt.Time = msTime(created)
	return f, nil
}

// liveFrame returns the asset of frame i of a link while it is live.
func liveFrame(ctx context.Context, tx *Tx, l share.Link, i int) (string, error) {
	var id string
	err := tx.QueryRow(ctx, `SELECT f.asset_id FROM share_frames f
		JOIN assets a ON a.organization_id = f.organization_id AND a.id = f.asset_id
		WHERE f.organization_id = ? AND f.share_id = ? AND f.i = ? AND a.deleted_at IS NULL`, l.HouseID, l.ID, i).Scan(&id)
	return id, notFound(err)
}

// UpsertMark records a mark on frame i of an open link. The link's mark
// counter is taken first, under the row's lock: the request that takes it
// from 0 to 1 raises first, in the same transaction.
func (db *DB) UpsertMark(ctx context.Context, l share.Link, i int, in share.MarkRequest, now time.Time, first notify.Notification) error {
	return db.write(ctx, func(tx *Tx) error {
		var seq int64
		err := tx.QueryRow(ctx, `UPDATE shares SET mark_seq = mark_seq + 1
			WHERE organization_id = ? AND id = ? AND revoked_at IS NULL AND expires_at > ? RETURNING mark_seq`,
			l.HouseID, l.ID, now.UnixMilli()).Scan(&seq)
		if err != nil {
			return notFound(err)
		}
		assetID, err := liveFrame(ctx, tx, l, i)
		if err != nil {
			return err
		}
		drawings := "[]"
		if in.HasDrawings() {
			b, err := json.Marshal(in.Drawings)
			if err != nil {
				return err
			}
			drawings = string(b)
		}
		var note sql.NullString
		if in.Note != nil {
			note = nullStr(*in.Note)
		}
		var verdict sql.NullString
		if in.Verdict != nil {
			verdict = sql.NullString{String: string(*in.Verdict), Valid: true}
		}
		// Fields the request gives replace the stored ones; the others stay.
		set := []string{"updated_at = excluded.updated_at"}
		if in.Verdict != nil {
			set = append(set, "verdict = excluded.verdict")
		}
		if in.Note != nil {
			set = append(set, "note = excluded.note")
		}
		if in.HasDrawings() {
			set = append(set, "drawings = excluded.drawings")
		}
		if _, err := tx.Exec(ctx, `INSERT INTO share_marks (organization_id, share_id, i, asset_id, verdict, note, drawings,
			created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (share_id, i) DO UPDATE SET `+strings.Join(set, ", "),
			l.HouseID, l.ID, i, assetID, verdict, note, drawings, now.UnixMilli(), now.UnixMilli()); err != nil {
			return err
		}
		if seq != 1 {
			return nil
		}
		_, err = insertNotification(ctx, tx, first)
		return err
	})
}

// RecordExport counts a download of frame i's original and stamps it,
// creating the frame's mark without a verdict when there is none.
func (db *DB) RecordExport(ctx context.Context, l share.Link, i int, now time.Time) error {
	return db.write(ctx, func(tx *Tx) error {
		assetID, err := liveFrame(ctx, tx, l, i)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO share_marks (organization_id, share_id, i, asset_id, exports, exported_at, created_at, updated_at)
			VALUES (?, ?, ?, ?, 1, ?, ?, ?)
			ON CONFLICT (share_id, i) DO UPDATE SET exports = share_marks.exports + 1, exported_at = excluded.exported_at,
			updated_at = excluded.updated_at`,
			l.HouseID, l.ID, i, assetID, now.UnixMilli(), now.UnixMilli(), now.UnixMilli())
		return err
	})
}

// FinishShare stamps finishedAt once under the link's row lock, counts the
// verdicts and, when marks came in since the last finish that notified,
// raises the notification. Nothing is written when no frame has a verdict.
func (db *DB) FinishShare(ctx context.Context, l share.Link, now time.Time, notice func(share.Finished) notify.Notification) (share.Finished, *notify.Notification, error) {
	var f share.Finished
	var raised *notify.Notification
	err := db.write(ctx, func(tx *Tx) error {
		raised = nil
		var markSeq, notified int64
		err := tx.QueryRow(ctx, `UPDATE shares SET finished_at = COALESCE(finished_at, ?)
			WHERE organization_id = ? AND id = ? AND revoked_at IS NULL AND expires_at > ? RETURNING mark_seq, notified_seq`,
			now.UnixMilli(), l.HouseID, l.ID, now.UnixMilli()).Scan(&markSeq, &notified)
		if err != nil {
			return notFound(err)
		}
		if err := tx.QueryRow(ctx, `SELECT
			(SELECT COUNT(*) FROM share_marks WHERE organization_id = ? AND share_id = ? AND verdict = 'keep'),
			(SELECT COUNT(*) FROM share_marks WHERE organization_id = ? AND share_id = ? AND verdict = 'pass')`,
			l.HouseID, l.ID, l.HouseID, l.ID).Scan(&f.Kept, &f.Passed); err != nil {
			return err
		}
		if f.Kept+f.Passed == 0 {
			return share.ErrNothingMarked
		}
		f.Finished = true
		if markSeq <= notified {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE shares SET notified_seq = ? WHERE organization_id = ? AND id = ?`, markSeq, l.HouseID, l.ID); err != nil {
			return err
		}
		n, err := insertNotification(ctx, tx, notice(f))
		if err != nil {
			return err
		}
		raised = &n
		return nil
	})
	if err != nil {
		return share.Finished{}, nil, err
	}
	return f, raised, nil
}

// ShareMarks lists the house's marks on the assets (every asset when ids
// is empty), newest change first.
func (db *DB) ShareMarks(ctx context.Context, house string, ids []string, limit int) ([]share.Mark, error) {
	where, args := `m.organization_id = ?`, []any{house}
	if len(ids) > 0 {
		in, idArgs := inList(ids)
		where += ` AND m.asset_id IN ` + in
		args = append(args, idArgs...)
	}
	rows, err := db.read().Query(ctx, `SELECT m.asset_id, m.share_id, s.recipient_label, m.verdict, m.note, m.drawings,
		m.exported_at, m.updated_at
		FROM share_marks m JOIN shares s ON s.organization_id = m.organization_id AND s.id = m.share_id
		WHERE `+where+` ORDER BY m.updated_at DESC, m.share_id DESC, m.i LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []share.Mark{}
	for rows.Next() {
		var m share.Mark
		var label, verdict, note, drawings sql.NullString
		var exported sql.NullInt64
		var at int64
		if err := rows.Scan(&m.AssetID, &m.ShareID, &label, &verdict, &note, &drawings, &exported, &at); err != nil {
			return nil, err
		}
		m.RecipientLabel, m.Note, m.Verdict = strPtr(label), strPtr(note), verdictPtr(verdict)
		m.ExportedAt, m.At = tsPtr(exported), ts.Milli(at)
		if m.Drawings, err = readDrawings(drawings); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// CoverageFacts reads a collection's pieces, the groups that hold them and
// the house's develops.
func (db *DB) CoverageFacts(ctx context.Context, house, folder string) (share.Facts, error) {
	q := db.read()
	if ok, err := folderExists(ctx, q, house, folder); err != nil {
		return share.Facts{}, err
	} else if !ok {
		return share.Facts{}, errs.NotFound
	}
	f := share.Facts{Pieces: []share.Piece{}, Groups: map[string][]string{}}
	rows, err := q.Query(ctx, `SELECT a.id, a.name,
		(SELECT MIN(g.tag) FROM asset_tags g WHERE g.organization_id = a.organization_id AND g.asset_id = a.id AND g.tag LIKE 'group:%')
		FROM assets a WHERE a.organization_id = ? AND a.folder_id = ? AND a.deleted_at IS NULL AND a.tool IS NULL
		AND NOT EXISTS (SELECT 1 FROM asset_tags k WHERE k.organization_id = a.organization_id AND k.asset_id = a.id
			AND k.tag IN ('kind:model', 'kind:background', 'kind:mark'))
		ORDER BY a.created_at DESC, a.id DESC`, house, folder)
	if err != nil {
		return share.Facts{}, err
	}
	var groups []string
	for rows.Next() {
		var p share.Piece
		var group sql.NullString
		if err := rows.Scan(&p.AssetID, &p.Name, &group); err != nil {
			rows.Close()
			return share.Facts{}, err
		}
		if group.Valid {
			p.GroupID = strings.TrimPrefix(group.String, "group:")
			groups = append(groups, group.String)
		}
		f.Pieces = append(f.Pieces, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return share.Facts{}, err
	}
	slices.Sort(groups)
	for chunk := range slices.Chunk(slices.Compact(groups), 500) {
		in, args := inList(chunk)
		err := each(ctx, q, `SELECT t.tag, t.asset_id FROM asset_tags t
			JOIN assets a ON a.organization_id = t.organization_id AND a.id = t.asset_id
			WHERE t.organization_id = ? AND a.deleted_at IS NULL AND t.tag IN `+in, append([]any{house}, args...),
			func(r *sql.Rows) error {
				var tag, id string
				if err := r.Scan(&tag, &id); err != nil {
					return err
				}
				g := strings.TrimPrefix(tag, "group:")
				f.Groups[g] = append(f.Groups[g], id)
				return nil
			})
		if err != nil {
			return share.Facts{}, err
		}
	}
	err = each(ctx, q, `SELECT id, retry_of_job_id, inputs, status, result_asset_id FROM jobs WHERE organization_id = ?`,
		[]any{house}, func(r *sql.Rows) error {
			var l share.Lineage
			var retry, result sql.NullString
			var inputs, status string
			if err := r.Scan(&l.JobID, &retry, &inputs, &status, &result); err != nil {
				return err
			}
			var in []job.Input
			if err := json.Unmarshal([]byte(inputs), &in); err != nil {
				return fmt.Errorf("job %s inputs: %w", l.JobID, err)
			}
			for _, x := range in {
				l.Inputs = append(l.Inputs, x.AssetID)
			}
			l.RetryOf = retry.String
			if job.Status(status) == job.Done {
				l.Result = result.String
			}
			f.Jobs = append(f.Jobs, l)
			return nil
		})
	return f, err
}

// FrameFacts reads what the director and the reviewers said about the
// house's live assets among ids.
func (db *DB) FrameFacts(ctx context.Context, house string, ids []string, now time.Time) (map[string]share.FrameFact, error) {
	q := db.read()
	out := map[string]share.FrameFact{}
	for chunk := range slices.Chunk(ids, 500) {
		in, args := inList(chunk)
		houseArgs := append([]any{house}, args...)
		err := each(ctx, q, `SELECT id, approved_at FROM assets WHERE organization_id = ? AND deleted_at IS NULL AND id IN `+in,
			houseArgs, func(r *sql.Rows) error {
				var id string
				var approved sql.NullInt64
				if err := r.Scan(&id, &approved); err != nil {
					return err
				}
				out[id] = share.FrameFact{Approved: approved.Valid}
				return nil
			})
		if err != nil {
			return nil, err
		}
		err = each(ctx, q, `SELECT asset_id, verdict, COUNT(*) FROM share_marks
			WHERE organization_id = ? AND verdict IS NOT NULL AND asset_id IN `+in+` GROUP BY asset_id, verdict`,
			houseArgs, func(r *sql.Rows) error {
				var id, verdict string
				var n int
				if err := r.Scan(&id, &verdict, &n); err != nil {
					return err
				}
				if ff, ok := out[id]; ok {
					if share.Verdict(verdict) == share.Keep {
						ff.Kept += n
					} else {
						ff.Passed += n
					}
					out[id] = ff
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
		err = each(ctx, q, `SELECT DISTINCT f.asset_id FROM share_frames f
			JOIN shares s ON s.organization_id = f.organization_id AND s.id = f.share_id
			LEFT JOIN share_marks m ON m.share_id = f.share_id AND m.i = f.i
			WHERE f.organization_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? AND m.verdict IS NULL AND f.asset_id IN `+in,
			append([]any{house, now.UnixMilli()}, args...), func(r *sql.Rows) error {
				var id string
				if err := r.Scan(&id); err != nil {
					return err
				}
				if ff, ok := out[id]; ok {
					ff.Pending = true
					out[id] = ff
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Member names a user and their address.
func (db *DB) Member(ctx context.Context, user string) (name, email string, err error) {
	err = db.read().QueryRow(ctx, `SELECT name, email FROM users WHERE id = ?`, user).Scan(&name, &email)
	return name, email, notFound(err)
}

// each runs a query and hands every row to fn.
func each(ctx context.Context, q *Tx, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
