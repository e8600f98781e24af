package apptest

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"sync/atomic"
	"testing"

	"studio/internal/httpapi"
)

// User is a signed-up person with a session in their personal house.
type User struct {
	ID       string
	Name     string
	Email    string
	Password string
	HouseID  string
	Cookie   string
}

// Session is the user's session credential.
func (u *User) Session() Cred { return Cred{Cookie: u.Cookie} }

var userSeq atomic.Int64

// SignUp creates a fresh user through the API.
func (a *App) SignUp(t testing.TB, name string) *User {
	t.Helper()
	n := userSeq.Add(1)
	u := &User{Name: name, Email: fmt.Sprintf("%s-%d@studio.test", name, n), Password: "correct horse battery"}
	return a.SignUpAs(t, u)
}

// SignUpAs creates the given user through the API.
func (a *App) SignUpAs(t testing.TB, u *User) *User {
	t.Helper()
	res := a.Do(t, "POST", "/api/auth/sign-up/email", Anonymous, map[string]string{"name": u.Name, "email": u.Email, "password": u.Password})
	if res.Status != http.StatusOK {
		t.Fatalf("sign-up %s: %d %s", u.Email, res.Status, res.Body)
	}
	var body struct {
		User struct{ ID string } `json:"user"`
	}
	res.JSON(t, &body)
	u.ID = body.User.ID
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == httpapi.SessionCookie {
			u.Cookie = c.Value
		}
	}
	if u.Cookie == "" {
		t.Fatalf("sign-up %s: no session cookie", u.Email)
	}
	s := a.Do(t, "GET", "/api/auth/get-session", u.Session(), nil)
	var sess struct {
		Session struct {
			ActiveOrganizationID string `json:"activeOrganizationId"`
		} `json:"session"`
	}
	s.JSON(t, &sess)
	u.HouseID = sess.Session.ActiveOrganizationID
	return u
}

// Key mints an API key of the role for the user's active house.
func (a *App) Key(t testing.TB, u *User, role string) Cred {
	t.Helper()
	return a.KeyIn(t, u.Session(), role)
}

// KeyIn mints an API key of the role with a session credential, for the
// house that session has active.
func (a *App) KeyIn(t testing.TB, session Cred, role string) Cred {
	t.Helper()
	res := a.Do(t, "POST", "/api/keys", session, map[string]string{"name": role + " key", "role": role})
	if res.Status != http.StatusCreated {
		t.Fatalf("mint %s key: %d %s", role, res.Status, res.Body)
	}
	var k struct{ Key string }
	res.JSON(t, &k)
	return Cred{Key: k.Key}
}

// Form is a multipart body.
type Form struct {
	Body        []byte
	ContentType string
}

// Part is one field of a multipart form: a value, or a file when Filename is set.
type Part struct {
	Name, Value, Filename string
	Data                  []byte
}

// Multipart encodes parts as a multipart/form-data body.
func Multipart(t testing.TB, parts ...Part) Form {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		var err error
		if p.Filename != "" {
			var fw interface{ Write([]byte) (int, error) }
			fw, err = w.CreateFormFile(p.Name, p.Filename)
			if err == nil {
				_, err = fw.Write(p.Data)
			}
		} else {
			err = w.WriteField(p.Name, p.Value)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return Form{Body: b.Bytes(), ContentType: w.FormDataContentType()}
}
