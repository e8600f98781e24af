package billing

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"studio/internal/webhook/sign"
)

// LocalPath is where the local test provider's pages live.
const LocalPath = "/billing/local/"

// LocalOptions configure the local test provider.
type LocalOptions struct {
	Secret    string // the webhook secret (whsec_...) it signs deliveries with
	PublicURL string // the service's public URL: pages are served there and deliveries sent there
	// Checkouts finds a checkout the service opened with this provider:
	// the provider side's record of what it sells.
	Checkouts func(ctx context.Context, providerID string) (Checkout, error)
	ReturnURL string       // the studio page the portal's "back" link leads to
	WebOrigin string       // the studio's web origin: after paying, "back" leads to its /billing/done page
	Client    *http.Client // nil: 10 s timeout
	Now       func() time.Time
}

// LocalProvider is the built-in test provider (DECISIONS §10): its hosted
// checkout and portal are pages this binary serves, marked test mode, and
// paying sends a signed delivery to the webhook route over HTTP, as a real
// provider would. It charges nothing and holds no card.
type LocalProvider struct {
	key  sign.Key
	opts LocalOptions
}

// NewLocal returns the local test provider.
func NewLocal(opts LocalOptions) (*LocalProvider, error) {
	key, err := sign.ParseSecret(opts.Secret)
	if err != nil {
		return nil, err
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	return &LocalProvider{key: key, opts: opts}, nil
}

func (l *LocalProvider) Name() string { return Local }

// Checkout opens a hosted checkout: a page of this binary.
func (l *LocalProvider) Checkout(_ context.Context, c *Checkout) error {
	c.ProviderID = "lco_" + strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")
	c.URL = l.opts.PublicURL + LocalPath + "checkout/" + c.ProviderID
	return nil
}

// Charge charges the customer's saved method, as a provider that keeps
// cards does: the order is recorded through record, then the provider side
// sends its order.paid delivery to the webhook route (the order id follows
// from the order, so a resend is the same order). An answer other than 200
// from the route is a refused charge.
func (l *LocalProvider) Charge(ctx context.Context, c *Checkout, record func(Checkout) error) error {
	if err := l.Checkout(ctx, c); err != nil {
		return err
	}
	if err := record(*c); err != nil {
		return err
	}
	status, err := l.Deliver(ctx, string(OrderPaid), l.order("lord_"+strings.TrimPrefix(c.ProviderID, "lco_"), "purchase", *c, "", c.CustomerID))
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("billing: the webhook route answered %d", status)
	}
	return err
}

// Portal opens a portal session: a signed, hour-long link to a page of this
// binary for the customer and its subscription.
func (l *LocalProvider) Portal(_ context.Context, p Portal) (string, error) {
	tok := portalToken{Customer: p.CustomerID, Subscription: p.SubscriptionID, Price: p.PriceCents, Return: p.ReturnURL,
		Expires: l.opts.Now().Add(time.Hour).Unix()}
	return l.opts.PublicURL + LocalPath + "portal/" + l.seal(tok), nil
}

// Cancel accepts every cancel; the service keeps the period's end.
func (l *LocalProvider) Cancel(context.Context, string) (time.Time, error) { return time.Time{}, nil }

// SetEmail accepts every address.
func (l *LocalProvider) SetEmail(context.Context, string, string) error { return nil }

// Verify checks a delivery's Standard Webhooks signature.
func (l *LocalProvider) Verify(h http.Header, body []byte, now time.Time) (string, error) {
	return l.key.Verify(h, body, now)
}

// Parse reads a delivery body.
func (l *LocalProvider) Parse(body []byte) (Event, error) { return ParseEvent(body) }

// portalToken is what a portal link carries, sealed with the secret.
type portalToken struct {
	Customer     string `json:"c"`
	Subscription string `json:"s,omitempty"`
	Price        int64  `json:"p,omitempty"` // the subscription's price a period, in cents
	Return       string `json:"r"`
	Expires      int64  `json:"e"`
}

func (l *LocalProvider) mac(b []byte) []byte {
	h := hmac.New(sha256.New, []byte(l.key.Sign("portal", time.Unix(0, 0), nil)))
	h.Write(b)
	return h.Sum(nil)
}

func (l *LocalProvider) seal(t portalToken) string {
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(l.mac(b))
}

func (l *LocalProvider) open(s string) (portalToken, bool) {
	body, sig, ok := strings.Cut(s, ".")
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	m, err2 := base64.RawURLEncoding.DecodeString(sig)
	var t portalToken
	if !ok || err1 != nil || err2 != nil || !hmac.Equal(m, l.mac(b)) || json.Unmarshal(b, &t) != nil ||
		l.opts.Now().Unix() > t.Expires {
		return portalToken{}, false
	}
	return t, true
}

// Deliver signs an event and sends it to the service's webhook route, as
// the provider side does; it answers the route's status.
func (l *LocalProvider) Deliver(ctx context.Context, typ string, data any) (int, error) {
	body, err := json.Marshal(map[string]any{"type": typ, "timestamp": l.opts.Now().UTC().Format(time.RFC3339), "data": data})
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.opts.PublicURL+"/api/toolkit/ai/billing/webhook/local", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, v := range l.key.Headers("msg_"+uuid.Must(uuid.NewV7()).String(), l.opts.Now(), body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := l.opts.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	return res.StatusCode, nil
}

// order is the order.paid data the local provider sends (a subset of
// Polar's Order).
func (l *LocalProvider) order(id, reason string, c Checkout, sub, customer string) map[string]any {
	o := map[string]any{"id": id, "billing_reason": reason, "subtotal_amount": c.AmountCents, "discount_amount": 0,
		"net_amount": c.AmountCents, "tax_amount": 0, "total_amount": c.AmountCents, "currency": "usd",
		"customer_id": customer, "checkout_id": nil, "subscription_id": nil}
	if reason != "subscription_cycle" {
		o["checkout_id"] = c.ProviderID
	}
	if sub != "" {
		o["subscription_id"] = sub
		o["subscription"] = map[string]any{"id": sub, "current_period_end": l.opts.Now().UTC().AddDate(0, 1, 0)}
	}
	return o
}

// Pages serves the hosted checkout and portal pages under LocalPath.
func (l *LocalProvider) Pages() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+LocalPath+"checkout/{id}", l.checkoutPage)
	mux.HandleFunc("POST "+LocalPath+"checkout/{id}/pay", l.pay)
	mux.HandleFunc("GET "+LocalPath+"portal/{token}", l.portalPage)
	mux.HandleFunc("POST "+LocalPath+"portal/{token}/{action}", l.portalAction)
	return mux
}

func (l *LocalProvider) checkoutPage(w http.ResponseWriter, r *http.Request) {
	c, err := l.opts.Checkouts(r.Context(), r.PathValue("id"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	l.render(w, http.StatusOK, "checkout", map[string]any{"C": c, "Amount": dollars(c.AmountCents), "Paid": c.Status == "paid"})
}

// pay is the Pay button: the provider side sends order.paid to the
// webhook. The order id follows from the checkout, so paying twice is one
// order (the service de-duplicates it).
func (l *LocalProvider) pay(w http.ResponseWriter, r *http.Request) {
	c, err := l.opts.Checkouts(r.Context(), r.PathValue("id"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	customer := "lcus_" + strings.ReplaceAll(c.House, "-", "")
	reason, sub := "purchase", ""
	if c.Kind == KindSubscription {
		reason, sub = "subscription_create", "lsub_"+strings.TrimPrefix(c.ProviderID, "lco_")
	}
	status, err := l.Deliver(r.Context(), string(OrderPaid), l.order("lord_"+strings.TrimPrefix(c.ProviderID, "lco_"), reason, c, sub, customer))
	if err != nil || status != http.StatusOK {
		l.render(w, http.StatusBadGateway, "done", map[string]any{"Title": "The delivery failed",
			"Text": fmt.Sprintf("The webhook route answered %d (%v); nothing was granted.", status, err), "Back": ""})
		return
	}
	back := l.opts.ReturnURL
	if l.opts.WebOrigin != "" {
		back = DoneURL(l.opts.WebOrigin, c.ID) // as a real provider's success URL
	}
	l.render(w, http.StatusOK, "done", map[string]any{"Title": "Paid (test mode)",
		"Text": "The provider sent the signed delivery; the studio grants what it bought once.", "Back": back})
}

func (l *LocalProvider) portalPage(w http.ResponseWriter, r *http.Request) {
	t, ok := l.open(r.PathValue("token"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	l.render(w, http.StatusOK, "portal", map[string]any{"T": t, "Token": r.PathValue("token")})
}

// portalAction is the portal's buttons: cancel at the period's end, charge
// the next period now (a renewal, for trying renewals out), or fail the
// next period's payment (subscription.past_due; a renewal recovers it).
func (l *LocalProvider) portalAction(w http.ResponseWriter, r *http.Request) {
	t, ok := l.open(r.PathValue("token"))
	if !ok || t.Subscription == "" {
		http.NotFound(w, r)
		return
	}
	var status int
	var err error
	switch r.PathValue("action") {
	case "cancel":
		status, err = l.Deliver(r.Context(), string(SubscriptionCanceled), map[string]any{"id": t.Subscription,
			"customer_id": t.Customer, "status": "active", "cancel_at_period_end": true})
	case "fail":
		status, err = l.Deliver(r.Context(), string(SubscriptionPastDue), map[string]any{"id": t.Subscription,
			"customer_id": t.Customer, "status": "past_due"})
	case "renew":
		c := Checkout{AmountCents: t.Price}
		status, err = l.Deliver(r.Context(), string(OrderPaid), l.order("lord_"+strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", ""),
			"subscription_cycle", c, t.Subscription, t.Customer))
	default:
		http.NotFound(w, r)
		return
	}
	if err == nil && status != http.StatusOK {
		err = errors.New(http.StatusText(status))
	}
	text := "The provider sent the signed delivery."
	if err != nil {
		text = "The delivery failed: " + err.Error()
	}
	l.render(w, http.StatusOK, "done", map[string]any{"Title": "Done (test mode)", "Text": text, "Back": t.Return})
}

func dollars(cents int64) string { return fmt.Sprintf("$%d.%02d", cents/100, cents%100) }

func (l *LocalProvider) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

var pages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Test mode: {{.}}</title><style>body{font:16px system-ui;max-width:32rem;margin:2rem auto;padding:0 1rem}
.test{background:#ffe08a;padding:.5rem 1rem;font-weight:bold;border-radius:4px}button{font-size:1rem;padding:.5rem 1.5rem}</style>
</head><body><p class="test" id="test-mode">TEST MODE: the local test provider. No card is charged.</p>{{end}}
{{define "checkout"}}{{template "head" "checkout"}}<h1>Checkout</h1>
<p>{{.C.HouseName}} buys <b id="item">{{.C.Description}}</b> for <b id="amount">{{.Amount}}</b>.</p>
{{if .Paid}}<p id="paid">This checkout is paid.</p>{{else}}
<form method="post" action="{{.C.ProviderID}}/pay"><button id="pay" type="submit">Pay {{.Amount}}</button></form>{{end}}
</body></html>{{end}}
{{define "portal"}}{{template "head" "portal"}}<h1>Customer portal</h1><p>Customer <code>{{.T.Customer}}</code>.</p>
{{if .T.Subscription}}<p>Subscription <code>{{.T.Subscription}}</code>.</p>
<form method="post" action="{{.Token}}/cancel"><button id="cancel" type="submit">Cancel at the period's end</button></form>
<form method="post" action="{{.Token}}/renew"><button id="renew" type="submit">Charge the next period now</button></form>
<form method="post" action="{{.Token}}/fail"><button id="fail" type="submit">Fail the next period's payment</button></form>
{{else}}<p>No subscription.</p>{{end}}<p><a href="{{.T.Return}}">Back to the studio</a></p></body></html>{{end}}
{{define "done"}}{{template "head" "done"}}<h1 id="title">{{.Title}}</h1><p id="text">{{.Text}}</p>
{{if .Back}}<p><a id="back" href="{{.Back}}">Back to the studio</a></p>{{end}}</body></html>{{end}}
`))
