package httpapi

import (
	"studio/internal/account"
	"studio/internal/apikey"
	"studio/internal/errs"
	"studio/internal/post"
)

// table is the API's table of contents: every route, once.
func (s *Server) table() []Route {
	return []Route{
		// Meta (SPEC §4.3)
		{Method: "GET", Path: "/health", Class: Public, Tag: "meta", Summary: "Liveness",
			Out: []Out{{Status: 200, Body: Health{}}}, Errors: []*errs.Error{ErrUnhealthy}, Handler: s.health},
		{Method: "GET", Path: "/openapi.json", Class: KeyOrSession, Tag: "meta", Summary: "This OpenAPI 3.1 document",
			Out: []Out{{Status: 200, Body: map[string]any{}}}, Handler: s.openapiJSON},
		{Method: "GET", Path: "/docs", Class: KeyOrSession, Tag: "meta", Summary: "Interactive API reference (HTML)",
			Out: []Out{{Status: 200, ContentType: "text/html"}}, Handler: s.docsPage},

		// Identity (DECISIONS §2)
		{Method: "POST", Path: "/api/auth/sign-up/email", Class: Public, Tag: "auth", Summary: "Create an account, a personal house and a session",
			In: account.SignUpRequest{}, Out: []Out{{Status: 200, Body: UserBody{}}},
			Errors: []*errs.Error{account.ErrWeakPassword, account.ErrBadEmail, account.ErrRegistered, account.ErrInviteNeeded}, Handler: s.signUp},
		{Method: "POST", Path: "/api/auth/sign-in/email", Class: Public, Tag: "auth", Summary: "Sign in with e-mail and password",
			In: account.SignInRequest{}, Out: []Out{{Status: 200, Body: UserBody{}}},
			Errors: []*errs.Error{account.ErrInvalidCreds, errs.RateLimited}, Handler: s.signIn},
		{Method: "POST", Path: "/api/auth/sign-out", Class: SessionOnly, Tag: "auth", Summary: "End the session",
			Out: []Out{{Status: 200, Body: Success{}}}, Handler: s.signOut},
		{Method: "GET", Path: "/api/auth/get-session", Class: SessionOnly, Tag: "auth", Summary: "The current session and user",
			Out: []Out{{Status: 200, Body: account.SessionView{}}}, Handler: s.getSession},
		{Method: "GET", Path: "/api/auth/organization/list", Class: SessionOnly, Tag: "auth", Summary: "Houses where the user holds a seat",
			Out: []Out{{Status: 200, Body: HousesBody{}}}, Handler: s.listHouses},
		{Method: "POST", Path: "/api/auth/organization/set-active", Class: SessionOnly, Tag: "auth", Summary: "Switch the session's active house",
			In: account.SetActiveRequest{}, Out: []Out{{Status: 200, Body: ActiveBody{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.setActive},
		{Method: "GET", Path: "/api/auth/verify-email", Class: Public, Tag: "auth", Summary: "Confirm an e-mail address",
			Query: VerifyQuery{}, Out: []Out{{Status: 200, Body: VerifiedBody{}}}, Errors: []*errs.Error{account.ErrBadToken}, Handler: s.verifyEmail},

		// API keys (SPEC §4.1)
		{Method: "GET", Path: "/api/keys", Class: SessionOnly, Tag: "keys", Summary: "List the house's API keys",
			Out: []Out{{Status: 200, Body: KeysBody{}}}, Handler: s.listKeys},
		{Method: "POST", Path: "/api/keys", Class: SessionOnly, Tag: "keys", Summary: "Mint an API key",
			In: apikey.MintRequest{}, Out: []Out{{Status: 201, Body: apikey.Minted{}}},
			Errors: []*errs.Error{errs.Forbidden, apikey.ErrBadRole}, Handler: s.mintKey},
		{Method: "DELETE", Path: "/api/keys/{id}", Class: SessionOnly, Tag: "keys", Summary: "Revoke an API key",
			Out: []Out{{Status: 200, Body: RevokedBody{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.revokeKey},

		// Posts (SPEC §4.16)
		{Method: "GET", Path: "/posts", Class: KeyOrSession, Tag: "posts", Summary: "List the house's posts",
			Out: []Out{{Status: 200, Body: []post.Post{}}}, Handler: s.listPosts},
		{Method: "POST", Path: "/posts", Class: KeyOrSession, Tag: "posts", Summary: "Write a post",
			In: post.CreateRequest{}, Out: []Out{{Status: 201, Body: post.Post{}}}, Errors: []*errs.Error{errs.Forbidden}, Handler: s.createPost},
		{Method: "GET", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "One post",
			Out: []Out{{Status: 200, Body: post.Post{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.getPost},
		{Method: "PATCH", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "Change a post (author only)",
			In: post.UpdateRequest{}, Out: []Out{{Status: 200, Body: post.Post{}}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.updatePost},
		{Method: "DELETE", Path: "/posts/{id}", Class: KeyOrSession, Tag: "posts", Summary: "Delete a post (author only)",
			Out: []Out{{Status: 204}}, Errors: []*errs.Error{errs.Forbidden, errs.NotFound}, Handler: s.deletePost},
	}
}
