// Package sqlstore is the one persistence adapter: every SQL statement of
// the service lives here, written once in the subset SQLite and PostgreSQL
// share, with the house named in every WHERE.
package sqlstore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	_ "modernc.org/sqlite" // SQLite driver "sqlite"

	"studio/internal/job"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Engine names the database in use.
type Engine uint8

const (
	SQLite Engine = iota
	Postgres
)

func (e Engine) String() string {
	if e == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// DB is the store. On SQLite every write goes through one writer
// connection and reads use a pool; on PostgreSQL both are one pool.
type DB struct {
	engine Engine
	w      *sql.DB
	r      *sql.DB
	now    func() time.Time
	// publicURL is the service's public URL: a job read from the store
	// carries its resultUrl absolute under it (job.ResultURL).
	publicURL string
	binds     sync.Map // query with ? -> query with $n (PostgreSQL)
	stmts     sync.Map // stmtKey -> *sql.Stmt (SQLite)
	// chained is told of each develop a pipeline queued when the step
	// before it landed, after the commit (OnChained).
	chained func(context.Context, job.Job)
	// events is where the events of committed changes go (OnEvents);
	// publishing serialises SQLite's commits that took a seq with their
	// publishing, so that the events leave in seq order.
	events     EventSink
	publishing sync.Mutex
	// access counts committed writes that can change what a credential
	// resolves to (AccessEpoch).
	access atomic.Uint64
	// holder is this process's hold holder (SetHolder): the owner the
	// holds of its calls record; "" records none.
	holder string
}

// Options configure Open.
type Options struct {
	DatabaseURL string           // postgres://...; empty means SQLite
	DataDir     string           // where the SQLite file lives
	Now         func() time.Time // the clock; time.Now when nil
	PublicURL   string           // the service's public URL, for the jobs' absolute resultUrl ("" leaves it relative)
	// Existing makes Open refuse, with ErrNoDatabase, an SQLite database
	// that is not there yet rather than create it (and its folder): a
	// command that only reads and writes an install's data.
	Existing bool
}

// ErrNoDatabase is Open's answer, with Existing, where the data folder
// holds no database.
var ErrNoDatabase = errors.New("no database")

const sqlitePragmas = "_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"

// pgConfig reads a PostgreSQL URL. The store's sessions run no parallel
// query unless the URL asks for it (max_parallel_workers_per_gather=N is
// sent as a session setting): once a house's ledger history is large, the
// planner's estimates make a parallel plan look cheaper for the balance and
// the live credits, and starting the workers took 20-30 ms of a statement
// whose rows took under one (TestPostgresSessionsRunSerial).
func pgConfig(url string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	if _, set := cfg.RuntimeParams[pgParallel]; !set {
		cfg.RuntimeParams[pgParallel] = "0"
	}
	return cfg, nil
}

const pgParallel = "max_parallel_workers_per_gather"

// Open connects to the database named by opts and applies the migrations.
func Open(ctx context.Context, opts Options) (*DB, error) {
	db := &DB{now: opts.Now, publicURL: opts.PublicURL}
	if db.now == nil {
		db.now = time.Now
	}
	if opts.DatabaseURL != "" {
		db.engine = Postgres
		cfg, err := pgConfig(opts.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		p := stdlib.OpenDB(*cfg)
		p.SetMaxOpenConns(32)
		p.SetMaxIdleConns(32)
		p.SetConnMaxIdleTime(5 * time.Minute)
		db.w, db.r = p, p
	} else {
		path := filepath.Join(opts.DataDir, "studio.db")
		if _, err := os.Stat(path); opts.Existing && errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w in %s", ErrNoDatabase, opts.DataDir)
		}
		if err := os.MkdirAll(opts.DataDir, 0o750); err != nil {
			return nil, fmt.Errorf("create data dir: %w", err)
		}
		w, err := sql.Open("sqlite", "file:"+path+"?"+sqlitePragmas+"&_txlock=immediate")
		if err != nil {
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		w.SetMaxOpenConns(1)
		w.SetMaxIdleConns(1)
		w.SetConnMaxLifetime(0)
		r, err := sql.Open("sqlite", "file:"+path+"?"+sqlitePragmas+"&mode=ro")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("open sqlite: %w", err)
		}
		r.SetMaxOpenConns(8)
		r.SetMaxIdleConns(8)
		db.w, db.r = w, r
	}
	if err := db.w.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect %s: %w", db.engine, err)
	}
	if _, err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Migrate applies every embedded migration not yet applied and returns how
// many it applied.
func (db *DB) Migrate(ctx context.Context) (int, error) {
	dialect := goose.DialectSQLite3
	if db.engine == Postgres {
		dialect = goose.DialectPostgres
	}
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	// Each area owns a range of version numbers, and areas land in any
	// order: a database migrated before an area with lower numbers landed
	// takes that area's migrations afterwards (none of them depends on a
	// higher-numbered one).
	opts := []goose.ProviderOption{goose.WithGoMigrations(searchMigration(db.engine), webhookHostsMigration(db.engine)), goose.WithAllowOutofOrder(true)}
	if db.engine == Postgres {
		// Instances sharing the database start at once: one applies the
		// migrations while the others wait on an advisory lock, named
		// after the schema so that databases in other schemas of the same
		// server (the tests' fresh ones) do not wait on each other.
		var schema string
		if err := db.w.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
			return 0, fmt.Errorf("migrations: %w", err)
		}
		h := fnv.New64a()
		_, _ = h.Write([]byte("studio migrations " + schema))
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64())), lock.WithLockTimeout(1, 900))
		if err != nil {
			return 0, fmt.Errorf("migrations: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, db.w, sub, opts...)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	res, err := p.Up(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return len(res), nil
}

// Engine reports which database is in use.
func (db *DB) Engine() Engine { return db.engine }

// Close closes the prepared statements and the connections.
func (db *DB) Close() error {
	db.stmts.Range(func(_, st any) bool { st.(*sql.Stmt).Close(); return true })
	err := db.w.Close()
	if db.r != db.w {
		err = errors.Join(err, db.r.Close())
	}
	return err
}

// Ping checks the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.r.PingContext(ctx) }

func (db *DB) nowMs() int64 { return db.now().UnixMilli() }

// bind rewrites ? placeholders to $n on PostgreSQL. Queries are constants,
// so each is rewritten once and cached.
func (db *DB) bind(q string) string {
	if db.engine != Postgres {
		return q
	}
	if v, ok := db.binds.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	inStr := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			inStr = !inStr
			b.WriteByte(c)
		case c == '?' && !inStr:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	s := b.String()
	db.binds.Store(q, s)
	return s
}

// queryer is what both *sql.DB and *sql.Tx offer.
type queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Tx is a transaction (or the read pool) with placeholders rebound.
type Tx struct {
	db   *DB
	q    queryer
	pool *sql.DB  // set when q is a pool: statements are prepared once and kept
	tx   *sql.Tx  // set inside a write transaction
	miss []string // statements the transaction ran unprepared, prepared after it
	// locked is the house whose row this transaction has locked (lockHouse,
	// or nextSeq's update), so that a second lockHouse costs no statement.
	locked string
	// access: the transaction ran a statement that can change what a
	// credential resolves to; AccessEpoch moves once it commits.
	access bool
	// seqs are the house event seqs the transaction took (nextSeq): it
	// sends their events (events.go).
	seqs []houseSeq
}

// stmt returns a prepared statement for query, or nil to run it directly.
// Inside a transaction it uses the writer's prepared statement when there
// is one and otherwise notes the query, to prepare once the single writer
// connection is free again.
func (t *Tx) stmt(ctx context.Context, query string) *sql.Stmt {
	if t.tx == nil {
		return t.db.prepared(ctx, t.pool, query)
	}
	if t.db.engine != SQLite {
		return nil
	}
	if st, ok := t.db.stmts.Load(stmtKey{t.db.w, query}); ok {
		return t.tx.StmtContext(ctx, st.(*sql.Stmt))
	}
	t.miss = append(t.miss, query)
	return nil
}

func (t *Tx) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if changesAccess(query) {
		defer t.accessChanged()
	}
	if st := t.stmt(ctx, query); st != nil {
		res, err := st.ExecContext(ctx, args...)
		return res, translate(err)
	}
	res, err := t.q.ExecContext(ctx, t.db.bind(query), args...)
	return res, translate(err)
}

// AccessEpoch moves after every committed write that can change what an
// API key resolves to: a key revoked, a seat added, re-roled or removed,
// a user or a house erased. A cache of resolved keys (apikey) tags each
// entry with the epoch read before its row was, and drops it once the
// epoch has moved. Every such write runs through Tx.Exec, which
// recognizes it by its statement (changesAccess), so no store method can
// forget to move it. sole is true on SQLite, whose file this process
// serves alone (the other subcommands never change access); on
// PostgreSQL other instances write too, so nothing may be cached.
func (db *DB) AccessEpoch() (epoch uint64, sole bool) {
	return db.access.Load(), db.engine == SQLite
}

// accessChanged moves AccessEpoch now for a statement on its own, or when
// the transaction commits.
func (t *Tx) accessChanged() {
	if t.tx != nil {
		t.access = true
		return
	}
	t.db.access.Add(1)
}

// accessWrites begin the statements that can change what a key resolves
// to (sqlstore.KeyByHash reads api_keys joined to seats; users and
// organizations take their seats and keys with them).
var accessWrites = []string{
	"UPDATE seats", "DELETE FROM seats", "INSERT INTO seats",
	"UPDATE api_keys SET revoked_at", "DELETE FROM api_keys",
	"DELETE FROM users", "DELETE FROM organizations",
}

func changesAccess(query string) bool {
	q := strings.TrimLeft(query, " \t\n")
	if len(q) == 0 || (q[0] != 'U' && q[0] != 'D' && q[0] != 'I') {
		return false
	}
	for _, p := range accessWrites {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}

func (t *Tx) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.stmt(ctx, query); st != nil {
		rows, err := st.QueryContext(ctx, args...)
		return rows, translate(err)
	}
	rows, err := t.q.QueryContext(ctx, t.db.bind(query), args...)
	return rows, translate(err)
}

func (t *Tx) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return t.q.QueryRowContext(ctx, t.db.bind(query), args...)
}

type stmtKey struct {
	pool  *sql.DB
	query string
}

// prepared returns the pool's prepared statement for query, preparing it
// the first time. SQLite parses a statement on every prepare, so keeping
// them halves the cost of a point read; PostgreSQL (pgx) already caches
// statements per connection, so it returns nil there and for
// transactions, and the caller runs the query directly.
func (db *DB) prepared(ctx context.Context, pool *sql.DB, query string) *sql.Stmt {
	if pool == nil || db.engine != SQLite {
		return nil
	}
	k := stmtKey{pool, query}
	if st, ok := db.stmts.Load(k); ok {
		return st.(*sql.Stmt)
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil // the direct call reports the error
	}
	if prev, loaded := db.stmts.LoadOrStore(k, st); loaded {
		st.Close()
		return prev.(*sql.Stmt)
	}
	return st
}

// write runs fn in one transaction on the writer; it commits when fn
// returns nil and rolls back otherwise.
func (db *DB) write(ctx context.Context, fn func(*Tx) error) error {
	sqlTx, err := db.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", translate(err))
	}
	tx := &Tx{db: db, q: sqlTx, tx: sqlTx}
	defer func() {
		for _, q := range tx.miss {
			db.prepared(ctx, db.w, q)
		}
	}()
	if err := fn(tx); err != nil {
		_ = sqlTx.Rollback()
		return err
	}
	var evs []event
	if tx.hasEvents() {
		if evs, err = tx.eventsOf(ctx); err == nil && db.engine == Postgres {
			for _, e := range evs {
				if err = db.events.Notify(ctx, sqlTx, e.house, e.seq, e.msg); err != nil {
					break
				}
			}
		}
		if err != nil {
			_ = sqlTx.Rollback()
			return err
		}
		if db.engine == SQLite {
			// The next transaction that took a seq commits after these
			// events are published (one writer: it took its seq after
			// this commit, and waits here before its own).
			db.publishing.Lock()
			defer db.publishing.Unlock()
		}
	}
	if err := sqlTx.Commit(); err != nil {
		if tx.access { // the commit's outcome is unknown: count it
			db.access.Add(1)
		}
		return fmt.Errorf("commit: %w", translate(err))
	}
	if tx.access {
		db.access.Add(1)
	}
	if db.engine == SQLite {
		for _, e := range evs {
			db.events.Publish(e.house, e.seq, e.msg)
		}
	}
	return nil
}

// read returns the read pool as a Tx-shaped handle.
func (db *DB) read() *Tx { return &Tx{db: db, q: db.r, pool: db.r} }

// writer returns the writer as a Tx-shaped handle for single statements.
func (db *DB) writer() *Tx { return &Tx{db: db, q: db.w, pool: db.w} }

// RawExec runs one statement on the writer. Tests use it to prove the
// schema's own constraints.
func (db *DB) RawExec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return db.writer().Exec(ctx, query, args...)
}

// Pool is the writer pool, for statements outside a store method's
// transaction, such as pg_notify after a commit.
func (db *DB) Pool() *sql.DB { return db.w }

// QueryTest scans one row of a read query into dest. Tests use it to look
// at rows no store method exposes.
func (db *DB) QueryTest(ctx context.Context, query string, dest ...any) error {
	return db.read().QueryRow(ctx, query).Scan(dest...)
}
