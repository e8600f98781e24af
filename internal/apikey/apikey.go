// Package apikey mints, lists, revokes and resolves organization API keys
// (SPEC §4.1, DECISIONS §3).
package apikey

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Prefix starts every key.
const Prefix = "fis_sk_"

// Key is an API key as the wire shows it. Secret is set only on mint.
type Key struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	Role       auth.Role `json:"role" enum:"viewer,member"`
	Prefix     string    `json:"prefix"`
	LastUsedAt *ts.Time  `json:"lastUsedAt"`
	RevokedAt  *ts.Time  `json:"revokedAt"`
	CreatedAt  ts.Time   `json:"createdAt"`
}

// Minted is the mint response: the key plus its raw secret, shown once.
type Minted struct {
	Key
	Secret string `json:"key"`
}

// MintRequest is the body of POST /api/keys.
type MintRequest struct {
	Name string    `json:"name" required:"true" minLength:"1" maxLength:"100"`
	Role auth.Role `json:"role,omitempty" enum:"viewer,member" default:"member"`
}

// ErrBadRole refuses a role a key cannot hold.
var ErrBadRole = errs.Msg(errs.BadRole, "A key's role is viewer or member.")

// Validate checks the name and the role ceiling.
func (r *MintRequest) Validate() error {
	r.Name = strings.TrimSpace(r.Name)
	if r.Name == "" || len(r.Name) > 100 {
		return errs.Msg(errs.BadBody, "A name of 1 to 100 characters is required.")
	}
	if r.Role == "" {
		r.Role = auth.Member
	}
	if r.Role != auth.Viewer && r.Role != auth.Member {
		return errs.With(ErrBadRole, "legal", []auth.Role{auth.Viewer, auth.Member})
	}
	return nil
}

// Resolved is a key row read on a request.
type Resolved struct {
	ID, HouseID, UserID string
	Role                auth.Role
	SeatRole            auth.Role // the seat the key's minter holds in its house now
	LastUsedAt          *int64
}

// Store is what keys need from persistence.
type Store interface {
	InsertKey(ctx context.Context, house, user string, k Key, hash string) error
	ListKeys(ctx context.Context, house string) ([]Key, error)
	RevokeKey(ctx context.Context, house, id string, at int64) (bool, error)
	KeyByHash(ctx context.Context, hash string) (Resolved, error)
	TouchKey(ctx context.Context, house, id string, at int64) error
	// AccessEpoch moves after every committed write that can change what
	// KeyByHash answers (a key revoked, a seat changed or removed, a user
	// or house erased) made through this store. sole reports whether every
	// such write goes through this store (SQLite: this process owns the
	// file); when it does not (PostgreSQL, shared by instances), nothing is
	// cached and the row is read on every call.
	AccessEpoch() (epoch uint64, sole bool)
}

// Service runs the key use cases.
type Service struct {
	store Store
	now   func() time.Time
	cache cache
}

// NewService returns the key service.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now, cache: cache{max: CacheSize, ttl: CacheTTL, m: map[[32]byte]*entry{}}}
}

// Mint creates a key for the caller's house. Keys are minted only from a
// session, and a viewer seat cannot mint.
func (s *Service) Mint(ctx context.Context, p auth.Principal, in MintRequest) (Minted, error) {
	if err := p.MayMintKeys(); err != nil {
		return Minted{}, err
	}
	var b [32]byte
	_, _ = rand.Read(b[:])
	secret := Prefix + base64.RawURLEncoding.EncodeToString(b[:])
	k := Key{
		ID: uuid.Must(uuid.NewV7()).String(), Name: in.Name, Role: in.Role,
		Prefix: secret[:12], CreatedAt: ts.Of(s.now()),
	}
	if err := s.store.InsertKey(ctx, p.HouseID, p.UserID, k, hash(secret)); err != nil {
		return Minted{}, err
	}
	return Minted{Key: k, Secret: secret}, nil
}

// List returns every key of the caller's house, revoked ones included.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Key, error) {
	return s.store.ListKeys(ctx, p.HouseID)
}

// Revoke revokes a key of the caller's house. Revoking twice is fine.
func (s *Service) Revoke(ctx context.Context, p auth.Principal, id string) error {
	if err := p.MayMintKeys(); err != nil {
		return err
	}
	ok, err := s.store.RevokeKey(ctx, p.HouseID, id, s.now().UnixMilli())
	if err != nil {
		return err
	}
	if !ok {
		return errs.NotFound
	}
	return nil
}

// Resolve returns the principal of a raw bearer secret. Revocation, a
// seat change or removal, or an erasure is effective on the very next
// request (SPEC §5.5). Where this process makes every such change (the
// store says sole), a live key's row is kept in a small cache for at most
// CacheTTL and only while the store's AccessEpoch has not moved since the
// row was read, so it is read again after any such change; elsewhere the
// row is read on every call.
func (s *Service) Resolve(ctx context.Context, secret string) (auth.Principal, error) {
	if !strings.HasPrefix(secret, Prefix) || len(secret) != len(Prefix)+43 {
		return auth.Principal{}, errs.Unauthorized
	}
	sum := sha256.Sum256([]byte(secret))
	epoch, sole := s.store.AccessEpoch() // read before the row: a change after it drops the entry
	var e *entry
	if sole {
		e = s.cache.get(sum, epoch)
	}
	if e == nil {
		r, err := s.store.KeyByHash(ctx, hex.EncodeToString(sum[:]))
		if errors.Is(err, errs.NotFound) {
			return auth.Principal{}, errs.Unauthorized
		}
		if err != nil {
			return auth.Principal{}, err
		}
		e = &entry{r: r, epoch: epoch, until: time.Now().Add(s.cache.ttl)}
		e.used.Store(neverUsed)
		if r.LastUsedAt != nil {
			e.used.Store(*r.LastUsedAt)
		}
		if sole {
			s.cache.put(sum, e)
		}
	}
	r := e.r
	now := s.now().UnixMilli()
	if last := e.used.Load(); (last == neverUsed || now-last >= 60_000) && e.used.CompareAndSwap(last, now) {
		if err := s.store.TouchKey(ctx, r.HouseID, r.ID, now); err != nil {
			e.used.Store(last)
			return auth.Principal{}, err
		}
	}
	// A key acts with at most its minter's seat: a member key of someone
	// re-seated as a viewer reads only.
	role := r.Role
	if !r.SeatRole.AtLeast(role) {
		role = r.SeatRole
	}
	return auth.Principal{UserID: r.UserID, HouseID: r.HouseID, Role: role, Cred: auth.CredKey, KeyID: r.ID}, nil
}

// Defaults of the resolved-key cache.
const (
	// CacheTTL is how long a resolved key is kept at most, even while
	// nothing changed.
	CacheTTL = 2 * time.Second
	// CacheSize bounds the keys held.
	CacheSize = 4096
)

const neverUsed = math.MinInt64

// entry is a resolved key row, held until until or until the epoch moves.
type entry struct {
	r     Resolved
	epoch uint64
	until time.Time
	used  atomic.Int64 // last_used_at as this process last wrote or read it
}

// cache holds resolved keys by the hash of their secret.
type cache struct {
	max int
	ttl time.Duration
	mu  sync.RWMutex
	m   map[[32]byte]*entry
}

// get returns the entry for sum when it is fresh and read at epoch.
func (c *cache) get(sum [32]byte, epoch uint64) *entry {
	c.mu.RLock()
	e := c.m[sum]
	c.mu.RUnlock()
	if e == nil || e.epoch != epoch || !time.Now().Before(e.until) {
		return nil
	}
	return e
}

// put stores e, first dropping an arbitrary entry when the cache is full.
func (c *cache) put(sum [32]byte, e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[sum]; !ok && len(c.m) >= c.max {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[sum] = e
}

// Cached reports how many resolved keys the cache holds (tests).
func (s *Service) Cached() int {
	s.cache.mu.RLock()
	defer s.cache.mu.RUnlock()
	return len(s.cache.m)
}

func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}
