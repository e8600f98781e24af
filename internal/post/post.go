// Package post is the sample resource (SPEC §4.16): the pattern every
// later house resource copies.
package post

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/ts"
)

// Post is a note kept by a house.
type Post struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Body      string  `json:"body"`
	AuthorID  *string `json:"authorId" description:"The author; null once the author erased their account."`
	CreatedAt ts.Time `json:"createdAt"`
	UpdatedAt ts.Time `json:"updatedAt"`
}

// By reports whether the post's author is the user.
func (p Post) By(user string) bool { return p.AuthorID != nil && *p.AuthorID == user }

// Limits on a post's text.
const (
	MaxTitle = 200
	MaxBody  = 100_000
)

// CreateRequest is the body of POST /posts.
type CreateRequest struct {
	Title *string `json:"title" required:"true" minLength:"1" maxLength:"200"`
	Body  *string `json:"body" required:"true" maxLength:"100000"`
}

// Validate checks both fields are present and within bounds.
func (r *CreateRequest) Validate() error {
	if r.Title == nil || r.Body == nil {
		return errs.Msg(errs.BadBody, "title and body are required.")
	}
	return checkText(r.Title, r.Body)
}

// UpdateRequest is the body of PATCH /posts/{id}; absent fields stay.
type UpdateRequest struct {
	Title *string `json:"title,omitempty" minLength:"1" maxLength:"200"`
	Body  *string `json:"body,omitempty" maxLength:"100000"`
}

// Validate checks whatever fields are present.
func (r *UpdateRequest) Validate() error { return checkText(r.Title, r.Body) }

func checkText(title, body *string) error {
	if title != nil {
		*title = strings.TrimSpace(*title)
		if *title == "" || len(*title) > MaxTitle {
			return errs.Msg(errs.BadBody, "title must be 1 to 200 characters.")
		}
	}
	if body != nil && len(*body) > MaxBody {
		return errs.Msg(errs.BadBody, "body must be at most 100000 characters.")
	}
	return nil
}

// Store is what posts need from persistence. Every method names the house.
type Store interface {
	InsertPost(ctx context.Context, house string, p Post) error
	ListPosts(ctx context.Context, house string) ([]Post, error)
	GetPost(ctx context.Context, house, id string) (Post, error)
	UpdatePost(ctx context.Context, house string, p Post) error
	DeletePost(ctx context.Context, house, id string) error
}

// Service runs the post use cases.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the post service.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now}
}

// List returns the house's posts, newest first.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Post, error) {
	return s.store.ListPosts(ctx, p.HouseID)
}

// Get returns one post of the house.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (Post, error) {
	return s.store.GetPost(ctx, p.HouseID, id)
}

// Create writes a post attributed to the caller. A viewer may not write.
func (s *Service) Create(ctx context.Context, p auth.Principal, in CreateRequest) (Post, error) {
	if err := p.MayEdit(); err != nil {
		return Post{}, err
	}
	now := ts.Of(s.now())
	author := p.UserID
	post := Post{ID: uuid.Must(uuid.NewV7()).String(), Title: *in.Title, Body: *in.Body, AuthorID: &author, CreatedAt: now, UpdatedAt: now}
	if err := s.store.InsertPost(ctx, p.HouseID, post); err != nil {
		return Post{}, err
	}
	return post, nil
}

// Update changes a post; only its author may.
func (s *Service) Update(ctx context.Context, p auth.Principal, id string, in UpdateRequest) (Post, error) {
	post, err := s.store.GetPost(ctx, p.HouseID, id)
	if err != nil {
		return Post{}, err
	}
	if err := mayChange(p, post); err != nil {
		return Post{}, err
	}
	if in.Title == nil && in.Body == nil {
		return post, nil
	}
	if in.Title != nil {
		post.Title = *in.Title
	}
	if in.Body != nil {
		post.Body = *in.Body
	}
	post.UpdatedAt = ts.Of(s.now())
	if err := s.store.UpdatePost(ctx, p.HouseID, post); err != nil {
		return Post{}, err
	}
	return post, nil
}

// errNotAuthor refuses a change of another seat's post.
var errNotAuthor = errs.Msg(errs.Forbidden, "Only a post's author may change or delete it.")

// mayChange refuses a change of the post by anyone but its author, and by
// its author once a viewer.
func mayChange(p auth.Principal, post Post) error {
	if err := p.MayEdit(); err != nil {
		return err
	}
	if !post.By(p.UserID) {
		return errNotAuthor
	}
	return nil
}

// Delete removes a post; only its author may.
func (s *Service) Delete(ctx context.Context, p auth.Principal, id string) error {
	post, err := s.store.GetPost(ctx, p.HouseID, id)
	if err != nil {
		return err
	}
	if err := mayChange(p, post); err != nil {
		return err
	}
	return s.store.DeletePost(ctx, p.HouseID, id)
}
