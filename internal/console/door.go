package console

import (
	"errors"
	"net/http"
	"net/url"

	"studio/internal/billing"
	"studio/internal/httpapi"
	"studio/internal/invite"
	"studio/internal/onboarding"
)

// The door: signing up and in, the links the service writes in its
// letters (/invite, /join, /billing/done) and the home page.

// home is GET /: the sign-in page for a signed-out visitor, else the
// house's front page (recent develops, first steps, the balance).
func (c *Console) home(w http.ResponseWriter, r *http.Request) error {
	var data struct {
		Runs  httpapi.RunsBody
		Steps onboarding.Checklist
	}
	me, err := c.visitor(w, r, read{path: "/api/toolkit/develops?state=all&limit=8", out: &data.Runs},
		read{path: "/api/toolkit/onboarding", out: &data.Steps})
	if errors.Is(err, errSignIn) {
		return c.render(w, http.StatusOK, "sign-in", doorView(r, "Sign in"))
	} else if err != nil {
		return err
	}
	return c.render(w, http.StatusOK, "home", view{Title: me.House.Name, Section: "home", Me: me, Data: data})
}

// signIn is GET /sign-in; a visitor already signed in goes on.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) error {
	return c.doorPage(w, r, "sign-in", "Sign in")
}

// signUp is GET /sign-up.
func (c *Console) signUp(w http.ResponseWriter, r *http.Request) error {
	return c.doorPage(w, r, "sign-up", "Create an account")
}

func (c *Console) doorPage(w http.ResponseWriter, r *http.Request, name, title string) error {
	next := localPath(r.URL.Query().Get("next"))
	if _, err := c.visitor(w, r); err == nil {
		if next == "" {
			next = "/"
		}
		http.Redirect(w, r, next, http.StatusSeeOther)
		return nil
	} else if !errors.Is(err, errSignIn) {
		return err
	}
	return c.render(w, http.StatusOK, name, doorView(r, title))
}

// doorView is the sign-in or sign-up page's view: where to go on, and
// the address a link may fill in.
func doorView(r *http.Request, title string) view {
	q := r.URL.Query()
	return view{Title: title, Next: localPath(q.Get("next")), Data: struct{ Email string }{Email: q.Get("email")}}
}

// verifyEmail is GET /verify-email?token=: the page confirms the address
// through the API's verification route (the same token).
func (c *Console) verifyEmail(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	var result struct {
		OK      bool
		Message string
	}
	err := c.get(w, r, "/api/auth/verify-email?token="+url.QueryEscape(token), nil)
	if e, ok := errors.AsType[*apiError](err); ok {
		result.Message = e.Message
	} else if err != nil {
		return err
	} else {
		result.OK = true
	}
	me, _ := c.visitor(w, r)
	return c.render(w, http.StatusOK, "verify", view{Title: "E-mail address", Me: me, Data: result})
}

// invite is GET /invite?token=: an operator's invitation to the studio.
// Anyone may read whom it is for; accepting it takes a session with that
// address, so a signed-out visitor is offered to sign up or in first.
func (c *Console) invite(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	var data struct {
		Token   string
		Email   string
		Problem string
	}
	data.Token = token
	var look invite.InvitedEmail
	if err := c.get(w, r, "/api/toolkit/invite/accept?token="+url.QueryEscape(token), &look); err != nil {
		e, ok := errors.AsType[*apiError](err)
		if !ok {
			return err
		}
		data.Problem = e.Message
	}
	data.Email = look.Email
	me, err := c.visitor(w, r)
	if err != nil && !errors.Is(err, errSignIn) {
		return err
	}
	return c.render(w, http.StatusOK, "invite", view{Title: "Invitation", Me: me, Data: data, Next: r.URL.RequestURI(), Script: "door.js"})
}

// join is GET /join: ?invitation=<id> is a seat offered in a house (the
// session accepts it, so a signed-out visitor signs in or up first);
// ?code=<code> is an invite code, which opens the door for one address
// before the account exists.
func (c *Console) join(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	data := struct {
		Invitation string
		Code       string
	}{Invitation: q.Get("invitation"), Code: q.Get("code")}
	me, err := c.visitor(w, r)
	if errors.Is(err, errSignIn) && data.Code == "" {
		return errSignIn
	} else if err != nil && !errors.Is(err, errSignIn) {
		return err
	}
	return c.render(w, http.StatusOK, "join", view{Title: "Join", Me: me, Data: data, Script: "door.js"})
}

// billingDone is GET /billing/done?checkout=: where the payment provider
// sends the browser back. Coming back grants nothing: the page watches the
// house's holdings until the checkout is no longer open (the provider's
// signed delivery landed) and shows what it credited.
func (c *Console) billingDone(w http.ResponseWriter, r *http.Request) error {
	var h billing.Holdings
	me, err := c.visitor(w, r, read{path: "/api/toolkit/entitlements", out: &h})
	if err != nil {
		return err
	}
	data := struct {
		Checkout string
		Open     *billing.OpenCheckout
	}{Checkout: r.URL.Query().Get("checkout")}
	for i := range h.Checkouts {
		if h.Checkouts[i].ID == data.Checkout {
			data.Open = &h.Checkouts[i]
		}
	}
	return c.render(w, http.StatusOK, "billing-done", view{Title: "Payment", Section: "money", Me: me, Data: data, Script: "money.js"})
}
