package sqlstore

import (
	"context"
	"database/sql"

	"studio/internal/post"
)

// InsertPost writes a post of the house.
func (db *DB) InsertPost(ctx context.Context, house string, p post.Post) error {
	_, err := db.writer().Exec(ctx, `INSERT INTO posts (id, organization_id, author_id, title, body, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, p.ID, house, p.AuthorID, p.Title, p.Body, p.CreatedAt.UnixMilli(), p.UpdatedAt.UnixMilli())
	return err
}

const postCols = `id, title, body, author_id, created_at, updated_at`

func scanPost(row interface{ Scan(...any) error }) (post.Post, error) {
	var p post.Post
	var created, updated int64
	var author sql.NullString
	if err := row.Scan(&p.ID, &p.Title, &p.Body, &author, &created, &updated); err != nil {
		return post.Post{}, notFound(err)
	}
	p.AuthorID = strPtr(author)
	p.CreatedAt.Time, p.UpdatedAt.Time = msTime(created), msTime(updated)
	return p, nil
}

// ListPosts lists the house's posts, newest first (ids are time-ordered).
func (db *DB) ListPosts(ctx context.Context, house string) ([]post.Post, error) {
	rows, err := db.read().Query(ctx, `SELECT `+postCols+` FROM posts WHERE organization_id = ? ORDER BY id DESC LIMIT 500`, house)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []post.Post{}
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GetPost returns one post of the house.
func (db *DB) GetPost(ctx context.Context, house, id string) (post.Post, error) {
	return scanPost(db.read().QueryRow(ctx, `SELECT `+postCols+` FROM posts WHERE organization_id = ? AND id = ?`, house, id))
}

// UpdatePost stores a post's title, body and update time.
func (db *DB) UpdatePost(ctx context.Context, house string, p post.Post) error {
	res, err := db.writer().Exec(ctx, `UPDATE posts SET title = ?, body = ?, updated_at = ? WHERE organization_id = ? AND id = ?`,
		p.Title, p.Body, p.UpdatedAt.UnixMilli(), house, p.ID)
	if err != nil {
		return err
	}
	return mustAffect(res)
}

// DeletePost removes a post of the house.
func (db *DB) DeletePost(ctx context.Context, house, id string) error {
	res, err := db.writer().Exec(ctx, `DELETE FROM posts WHERE organization_id = ? AND id = ?`, house, id)
	if err != nil {
		return err
	}
	return mustAffect(res)
}
