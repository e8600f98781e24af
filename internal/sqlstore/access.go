package sqlstore

import (
	"context"
	"database/sql"

	"studio/internal/access"
	"studio/internal/ts"
)

// ToolItems lists a tool's curated items in sort order (service-wide rows).
func (db *DB) ToolItems(ctx context.Context, tool string) ([]access.Item, error) {
	rows, err := db.read().Query(ctx, `SELECT id, tool_id, category, title_he, label_he, content_en, image_url, notes_he, sort_order, created_at
		FROM tool_items WHERE tool_id = ? ORDER BY sort_order, id`, tool)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []access.Item{}
	for rows.Next() {
		var it access.Item
		var img, notes sql.NullString
		var at int64
		if err := rows.Scan(&it.ID, &it.ToolID, &it.Category, &it.TitleHe, &it.LabelHe, &it.ContentEn, &img, &notes, &it.SortOrder, &at); err != nil {
			return nil, err
		}
		if img.Valid {
			it.ImageURL = &img.String
		}
		if notes.Valid {
			it.NotesHe = &notes.String
		}
		it.CreatedAt = ts.Milli(at)
		out = append(out, it)
	}
	return out, rows.Err()
}
