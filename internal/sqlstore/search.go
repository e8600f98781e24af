package sqlstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/pressly/goose/v3"

	"studio/internal/asset"
	"studio/internal/look"
	"studio/internal/search"
)

// The search index (SPEC §4.19, issue 16). search_docs holds one row per
// indexed thing of a house: its title, a caption (meta), a picture and the
// words it is also found by (body). Each write of an indexed row rewrites
// its document in the same transaction (reindexPieces, reindexCollection,
// indexLook), so the index is never behind what a house reads.
//
// The full-text part differs by engine, so it is one Go migration
// (searchVersion) rather than a portable .sql file: on SQLite an external
// content FTS5 table over search_docs, kept in step by triggers, keyed by an
// INTEGER PRIMARY KEY (a rowid that VACUUM keeps), with the house as a
// column of its own so a query only ever walks one house's postings; on
// PostgreSQL a generated, weighted tsvector column with a GIN index, over
// the text with every run of other characters made a space (as the query's
// words are split, so LS-27 is the words ls and 27 on both engines).

// searchVersion is the index's migration number (issue 16's range).
const searchVersion = 81

func searchMigration(e Engine) *goose.Migration {
	up := func(ctx context.Context, tx *sql.Tx) error {
		stmts := searchSQLite
		if e == Postgres {
			stmts = searchPostgres
		}
		for _, s := range append(stmts, backfillPieces, backfillCollections) {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return backfillLooks(ctx, tx, e)
	}
	down := func(ctx context.Context, tx *sql.Tx) error {
		stmts := []string{`DROP TABLE search_docs`}
		if e == SQLite {
			stmts = []string{`DROP TABLE search_fts`, `DROP TABLE search_docs`}
		}
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}
	return goose.NewGoMigration(searchVersion, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: down})
}

var searchSQLite = []string{
	`CREATE TABLE search_docs (
		seq             INTEGER PRIMARY KEY,
		organization_id TEXT NOT NULL REFERENCES organizations (id),
		kind            TEXT NOT NULL CHECK (kind IN ('piece', 'collection', 'look', 'workflow')),
		id              TEXT NOT NULL,
		title           TEXT NOT NULL,
		meta            TEXT,
		thumb_asset_id  TEXT,
		body            TEXT NOT NULL,
		house           TEXT NOT NULL,
		created_at      BIGINT NOT NULL,
		UNIQUE (organization_id, kind, id)
	)`,
	`CREATE VIRTUAL TABLE search_fts USING fts5(house, title, body, content='search_docs', content_rowid='seq',
		tokenize='unicode61 remove_diacritics 2', prefix='2 3')`,
	`INSERT INTO search_fts (search_fts, rank) VALUES ('rank', 'bm25(0.0, 10.0, 2.0)')`,
	`CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
		INSERT INTO search_fts (rowid, house, title, body) VALUES (new.seq, new.house, new.title, new.body);
	END`,
	`CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
		INSERT INTO search_fts (search_fts, rowid, house, title, body) VALUES ('delete', old.seq, old.house, old.title, old.body);
	END`,
	`CREATE TRIGGER search_docs_au AFTER UPDATE ON search_docs BEGIN
		INSERT INTO search_fts (search_fts, rowid, house, title, body) VALUES ('delete', old.seq, old.house, old.title, old.body);
		INSERT INTO search_fts (rowid, house, title, body) VALUES (new.seq, new.house, new.title, new.body);
	END`,
}

var searchPostgres = []string{
	`CREATE TABLE search_docs (
		organization_id TEXT NOT NULL REFERENCES organizations (id),
		kind            TEXT NOT NULL CHECK (kind IN ('piece', 'collection', 'look', 'workflow')),
		id              TEXT NOT NULL,
		title           TEXT NOT NULL,
		meta            TEXT,
		thumb_asset_id  TEXT,
		body            TEXT NOT NULL,
		house           TEXT NOT NULL,
		created_at      BIGINT NOT NULL,
		tsv             tsvector GENERATED ALWAYS AS
			(setweight(to_tsvector('simple', regexp_replace(title, '[^[:alnum:]]+', ' ', 'g')), 'A') ||
			 setweight(to_tsvector('simple', regexp_replace(body, '[^[:alnum:]]+', ' ', 'g')), 'B')) STORED,
		PRIMARY KEY (organization_id, kind, id)
	)`,
	`CREATE INDEX search_docs_tsv ON search_docs USING GIN (tsv)`,
}

// houseToken is the house as one FTS5 token (a UUID would be five).
const houseToken = `'h' || REPLACE(a.organization_id, '-', '')`

// pieceDocs selects the documents of the house's pieces that cond picks:
// live uploads that are not models, backgrounds or marks. A piece is found
// by its name, its SKU and its collection's name; its caption is its SKU,
// else its kind.
const pieceDocs = `SELECT a.organization_id, 'piece', a.id, a.name,
		COALESCE((SELECT SUBSTR(t.tag, 5) FROM asset_tags t WHERE t.asset_id = a.id AND t.tag LIKE 'sku:%'),
			(SELECT SUBSTR(t.tag, 6) FROM asset_tags t WHERE t.asset_id = a.id AND t.tag LIKE 'kind:%')),
		a.id,
		COALESCE((SELECT SUBSTR(t.tag, 5) FROM asset_tags t WHERE t.asset_id = a.id AND t.tag LIKE 'sku:%'), '') || ' ' || COALESCE(f.name, ''),
		` + houseToken + `, a.created_at
	FROM assets a LEFT JOIN folders f ON f.organization_id = a.organization_id AND f.id = a.folder_id
	WHERE a.deleted_at IS NULL AND a.tool IS NULL
		AND NOT EXISTS (SELECT 1 FROM asset_tags t WHERE t.asset_id = a.id AND t.tag IN ('kind:model', 'kind:background', 'kind:mark'))`

// collectionDocs selects collection documents: found by name; the caption
// is the parent collection's name.
const collectionDocs = `SELECT a.organization_id, 'collection', a.id, a.name,
		(SELECT p.name FROM folders p WHERE p.organization_id = a.organization_id AND p.id = a.parent_id),
		NULL, '', ` + houseToken + `, a.created_at
	FROM folders a WHERE 1 = 1`

const docCols = `INSERT INTO search_docs (organization_id, kind, id, title, meta, thumb_asset_id, body, house, created_at) `

var (
	backfillPieces      = docCols + pieceDocs
	backfillCollections = docCols + collectionDocs
)

// reindexPieces rewrites the documents of the house's assets that cond (a
// condition on assets a, with args) picks: removed, or written again as
// they now are.
func reindexPieces(ctx context.Context, tx *Tx, house, cond string, args ...any) error {
	del := append([]any{house, house}, args...)
	if _, err := tx.Exec(ctx, `DELETE FROM search_docs WHERE organization_id = ? AND kind = 'piece'
		AND id IN (SELECT a.id FROM assets a WHERE a.organization_id = ? AND `+cond+`)`, del...); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, docCols+pieceDocs+` AND a.organization_id = ? AND `+cond, append([]any{house}, args...)...)
	return err
}

// reindexCollection rewrites a collection's document and those of its
// pieces (found by its name) and of its children (captioned with it).
func reindexCollection(ctx context.Context, tx *Tx, house, id string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM search_docs WHERE organization_id = ? AND kind = 'collection'
		AND id IN (SELECT a.id FROM folders a WHERE a.organization_id = ? AND (a.id = ? OR a.parent_id = ?))`, house, house, id, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, docCols+collectionDocs+` AND a.organization_id = ? AND (a.id = ? OR a.parent_id = ?)`, house, id, id); err != nil {
		return err
	}
	return reindexPieces(ctx, tx, house, `a.folder_id = ?`, id)
}

// indexLook writes a look's document: found by its name and its pieces'
// labels; captioned with its status; pictured by its look base, else its
// model.
func indexLook(ctx context.Context, tx *Tx, house string, l look.Look) error {
	var words, ids []string
	for _, it := range l.Items {
		if it.Label != "" {
			words = append(words, it.Label)
		}
		ids = append(ids, it.AssetID)
	}
	if len(ids) > 0 {
		in, args := inList(ids)
		rows, err := tx.Query(ctx, `SELECT name FROM assets WHERE organization_id = ? AND id IN `+in, append([]any{house}, args...)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				rows.Close()
				return err
			}
			words = append(words, name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	thumb := l.ModelAssetID
	if l.LookBaseAssetID != nil {
		thumb = *l.LookBaseAssetID
	}
	status := string(l.Status)
	_, err := tx.Exec(ctx, docCols+`VALUES (?, 'look', ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, kind, id) DO UPDATE SET title = excluded.title, meta = excluded.meta,
			thumb_asset_id = excluded.thumb_asset_id, body = excluded.body`,
		house, l.ID, l.Name, status, thumb, strings.Join(words, " "), "h"+strings.ReplaceAll(house, "-", ""), l.CreatedAt.UnixMilli())
	return err
}

// backfillLooks indexes the looks written before the index existed.
func backfillLooks(ctx context.Context, tx *sql.Tx, e Engine) error {
	db := &DB{engine: e}
	t := &Tx{db: db, q: tx, tx: tx}
	rows, err := tx.QueryContext(ctx, `SELECT organization_id, id FROM looks`)
	if err != nil {
		return err
	}
	var keys [][2]string
	for rows.Next() {
		var k [2]string
		if err := rows.Scan(&k[0], &k[1]); err != nil {
			rows.Close()
			return err
		}
		keys = append(keys, k)
	}
	rows.Close()
	for _, k := range keys {
		l, err := scanLook(t.QueryRow(ctx, `SELECT `+lookCols+` FROM looks WHERE organization_id = ? AND id = ?`, k[0], k[1]))
		if err != nil {
			return err
		}
		if err := indexLook(ctx, t, k[0], l); err != nil {
			return err
		}
	}
	return nil
}

// Search finds the house's documents whose words start with every term,
// best first (title words weigh more than the others).
func (db *DB) Search(ctx context.Context, house string, terms []string, limit int) ([]search.Result, error) {
	var rows *sql.Rows
	var err error
	if db.engine == Postgres {
		q := make([]string, len(terms))
		for i, t := range terms {
			q[i] = t + ":*"
		}
		rows, err = db.read().Query(ctx, `SELECT kind, id, title, meta, thumb_asset_id
			FROM search_docs, to_tsquery('simple', ?) q
			WHERE organization_id = ? AND tsv @@ q ORDER BY ts_rank(tsv, q) DESC, title, id LIMIT ?`,
			strings.Join(q, " & "), house, limit)
	} else {
		q := make([]string, 0, len(terms)+1)
		q = append(q, `house : "h`+strings.ReplaceAll(house, "-", "")+`"`)
		for _, t := range terms {
			q = append(q, `{title body} : "`+t+`"*`)
		}
		// FTS5 ranks and cuts alone (its rank, configured as bm25 with
		// these weights, is cheaper than a bm25() call per joined row);
		// only the page is joined to its documents.
		rows, err = db.read().Query(ctx, `SELECT d.kind, d.id, d.title, d.meta, d.thumb_asset_id
			FROM (SELECT rowid, rank FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT ?) f
			JOIN search_docs d ON d.seq = f.rowid
			WHERE d.organization_id = ? ORDER BY f.rank, d.title, d.id`, strings.Join(q, " AND "), limit, house)
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []search.Result{}
	for rows.Next() {
		var r search.Result
		var meta, thumb sql.NullString
		if err := rows.Scan(&r.Kind, &r.ID, &r.Title, &meta, &thumb); err != nil {
			return nil, err
		}
		if meta.Valid && meta.String != "" {
			r.Meta = &meta.String
		}
		if thumb.Valid {
			u := asset.FileURL(thumb.String)
			r.ThumbURL = &u
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
