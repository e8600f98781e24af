package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"studio/internal/casting"
	"studio/internal/ledger"
	"studio/internal/sqlstore"
	"studio/internal/tool"
)

// The one-shot commands open only what they need, not a role.

// Migrate opens only the database (no blob store, engines, relay or
// mailer), which applies the embedded migrations, and closes it. It names
// the database engine migrated.
func Migrate(ctx context.Context, cfg Config) (string, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return "", err
	}
	return db.Engine().String(), db.Close()
}

// ImportModels loads the catalogue faces the manifest of dir describes
// (`studio models import DIR`). It opens only the database and the blob
// store, and names how many faces it wrote.
func ImportModels(ctx context.Context, cfg Config, dir string) (int, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return 0, err
	}
	blobs, err := openBlobs(ctx, cfg.BlobURL, cfg.DataDir)
	if err != nil {
		return 0, errors.Join(err, db.Close())
	}
	n, err := casting.NewService(db, casting.Options{Blobs: blobs}).Import(ctx, os.DirFS(dir))
	return n, errors.Join(err, db.Close(), blobs.Close())
}

// GrantTokens credits a user's personal house as the admin route does
// (the same ledger rows; no granting user is recorded), opening only the
// database, which must exist: the studio tokens grant command of an
// installation's operator.
func GrantTokens(ctx context.Context, cfg Config, in ledger.GrantRequest) (ledger.Granted, error) {
	db, err := sqlstore.Open(ctx, sqlstore.Options{DatabaseURL: cfg.DatabaseURL, DataDir: cfg.DataDir, Existing: true})
	if errors.Is(err, sqlstore.ErrNoDatabase) {
		// Run in another folder, it would grant to a database of its own
		// that serve never reads (and find no user there).
		return ledger.Granted{}, fmt.Errorf("no database in %s; run it where serve keeps its data, or set STUDIO_DATA_DIR", cfg.DataDir)
	}
	if err != nil {
		return ledger.Granted{}, err
	}
	defer db.Close()
	return ledger.NewService(db, tool.DefaultPrices(), time.Now).GrantAsOperator(ctx, in)
}
