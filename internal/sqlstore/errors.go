package sqlstore

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"studio/internal/errs"
)

// errUnique marks a unique-constraint violation; store methods turn it into
// the domain's own conflict code.
var errUnique = errors.New("unique constraint violated")

// errCheck marks a CHECK-constraint violation.
var errCheck = errors.New("check constraint violated")

// translate maps driver errors onto the few the store reasons about.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch pe.Code {
		case "23505":
			return errors.Join(errUnique, err)
		case "23514":
			return errors.Join(errCheck, err)
		}
		return err
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		switch se.Code() {
		case 2067, 1555: // SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY
			return errors.Join(errUnique, err)
		case 275: // SQLITE_CONSTRAINT_CHECK
			return errors.Join(errCheck, err)
		}
	}
	return err
}

// notFound turns sql.ErrNoRows into the one NOT_FOUND every route shares.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return errs.NotFound
	}
	return err
}
