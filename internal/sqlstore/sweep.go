package sqlstore

import "context"

// BlobsInUse returns, of the house's assets and packs named by id, the blob
// keys their rows refer to. A deleted asset's row still names its bytes, so
// it counts; a pack whose archive was swept has no key.
func (db *DB) BlobsInUse(ctx context.Context, house string, assetIDs, packIDs []string) (map[string]bool, error) {
	used := map[string]bool{}
	for _, q := range []struct {
		sql string
		ids []string
	}{
		{`SELECT blob_key FROM assets WHERE organization_id = ? AND id IN `, assetIDs},
		{`SELECT blob_key FROM packs WHERE organization_id = ? AND blob_key IS NOT NULL AND id IN `, packIDs},
	} {
		if len(q.ids) == 0 {
			continue
		}
		in, args := inList(q.ids)
		rows, err := db.read().Query(ctx, q.sql+in, append([]any{house}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, err
			}
			used[k] = true
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return used, nil
}
