package billing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"studio/internal/webhook/sign"
)

// DefaultPolarURL is Polar's production API (its sandbox is
// https://sandbox-api.polar.sh).
const DefaultPolarURL = "https://api.polar.sh"

// PolarOptions configure the Polar provider.
type PolarOptions struct {
	AccessToken string // an Organization Access Token
	BaseURL     string // DefaultPolarURL unless told otherwise
	// Products maps what the service sells to Polar product ids: "pack-100",
	// "pack-500", "pack-2000", "studio", "atelier", "maison", and "custom"
	// (a product with a custom price: the checkout sets its amount); "model"
	// (custom price too) sells catalogue faces, else "custom" does.
	Products map[string]string
	// WebhookSecret is the endpoint's secret as Polar's dashboard shows it;
	// empty refuses every delivery.
	WebhookSecret string
	Client        *http.Client // nil: 15 s timeout
}

// ParseProducts reads POLAR_PRODUCTS: "name=id" pairs separated by commas.
func ParseProducts(s string) (map[string]string, error) {
	out := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		if k, v = strings.TrimSpace(k), strings.TrimSpace(v); !ok || k == "" || v == "" {
			return nil, fmt.Errorf("%q is not name=product-id", pair)
		}
		out[k] = v
	}
	return out, nil
}

// PolarProvider speaks Polar's API (https://polar.sh/docs/api-reference):
// checkout sessions, customer sessions for the portal, subscription cancel
// at period end, the customer's e-mail; and verifies its Standard Webhooks
// deliveries.
type PolarProvider struct {
	opts PolarOptions
	key  sign.Key
}

// NewPolar returns the Polar provider.
func NewPolar(opts PolarOptions) (*PolarProvider, error) {
	if opts.AccessToken == "" {
		return nil, errors.New("billing: POLAR_ACCESS_TOKEN is required with BILLING_PROVIDER=polar")
	}
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultPolarURL
	}
	opts.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 15 * time.Second}
	}
	// Polar's SDKs hand the dashboard's secret to the Standard Webhooks
	// library base64-encoded: the HMAC key is the secret's own bytes.
	return &PolarProvider{opts: opts, key: sign.RawKey([]byte(opts.WebhookSecret))}, nil
}

func (p *PolarProvider) Name() string { return Polar }

// product names a checkout's Polar product.
func product(c *Checkout) string {
	switch c.Kind {
	case KindSubscription:
		return string(c.Tier)
	case KindCustom:
		return "custom"
	case KindModel:
		return "model"
	}
	return "pack-" + itoa(c.Tokens)
}

// call sends one API request and decodes a 2xx answer into out.
func (p *PolarProvider) call(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.opts.BaseURL+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.opts.AccessToken)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := p.opts.Client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("polar %s %s: %d %s", method, path, res.StatusCode, bytes.TrimSpace(b[:min(len(b), 300)]))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// Checkout creates a checkout session (POST /v1/checkouts/). The metadata
// is copied by Polar to the order and subscription.
func (p *PolarProvider) Checkout(ctx context.Context, c *Checkout) error {
	id, ok := p.opts.Products[product(c)]
	if !ok && c.Kind == KindModel { // a face is sold on the custom-price product unless one is set for models
		id, ok = p.opts.Products["custom"]
	}
	if !ok {
		return fmt.Errorf("polar: no product configured for %q (POLAR_PRODUCTS)", product(c))
	}
	in := map[string]any{
		"products":    []string{id},
		"success_url": c.SuccessURL,
		"metadata":    map[string]any{"studio_checkout": c.ID, "studio_house": c.House},
		// The order must pay the price the checkout recorded (a discounted
		// order is refused, DECISIONS §11): no discount codes at checkout.
		"allow_discount_codes": false,
	}
	if c.CustomerID != "" {
		in["customer_id"] = c.CustomerID
	} else {
		in["external_customer_id"] = c.House
		if c.Email != "" {
			in["customer_email"] = c.Email
		}
	}
	if c.Kind == KindCustom || c.Kind == KindModel {
		in["amount"] = c.AmountCents
	}
	if c.Kind == KindModel {
		in["metadata"].(map[string]any)["studio_face"] = c.FaceID
	}
	var out struct {
		ID  string `json:"id"`
		URL string `json:"url"`
	}
	if err := p.call(ctx, http.MethodPost, "/v1/checkouts/", in, &out); err != nil {
		return err
	}
	if out.ID == "" || out.URL == "" {
		return errors.New("polar: the checkout has no id or url")
	}
	c.ProviderID, c.URL = out.ID, out.URL
	return nil
}

// Portal creates a customer session (POST /v1/customer-sessions/) and
// answers its customer portal URL.
func (p *PolarProvider) Portal(ctx context.Context, pt Portal) (string, error) {
	var out struct {
		URL string `json:"customer_portal_url"`
	}
	in := map[string]any{"customer_id": pt.CustomerID, "return_url": pt.ReturnURL}
	if err := p.call(ctx, http.MethodPost, "/v1/customer-sessions/", in, &out); err != nil {
		return "", err
	}
	if out.URL == "" {
		return "", errors.New("polar: the customer session has no customer_portal_url")
	}
	return out.URL, nil
}

// Cancel sets the subscription to cancel at the period's end (PATCH
// /v1/subscriptions/{id}) and answers when it ends.
func (p *PolarProvider) Cancel(ctx context.Context, subscriptionID string) (time.Time, error) {
	var out struct {
		EndsAt           *time.Time `json:"ends_at"`
		CurrentPeriodEnd *time.Time `json:"current_period_end"`
	}
	err := p.call(ctx, http.MethodPatch, "/v1/subscriptions/"+url.PathEscape(subscriptionID),
		map[string]any{"cancel_at_period_end": true}, &out)
	switch {
	case err != nil:
		return time.Time{}, err
	case out.EndsAt != nil:
		return *out.EndsAt, nil
	case out.CurrentPeriodEnd != nil:
		return *out.CurrentPeriodEnd, nil
	}
	return time.Time{}, nil
}

// SetEmail changes the customer's address (PATCH /v1/customers/{id}).
func (p *PolarProvider) SetEmail(ctx context.Context, customerID, email string) error {
	return p.call(ctx, http.MethodPatch, "/v1/customers/"+url.PathEscape(customerID), map[string]any{"email": email}, nil)
}

// errNoSecret refuses every delivery while the secret is unset.
var errNoSecret = errors.New("billing: BILLING_WEBHOOK_SECRET is unset: every delivery is refused")

// Verify checks a delivery's Standard Webhooks signature; without a secret
// it refuses every delivery (fails closed).
func (p *PolarProvider) Verify(h http.Header, body []byte, now time.Time) (string, error) {
	if p.opts.WebhookSecret == "" {
		return "", errNoSecret
	}
	return p.key.Verify(h, body, now)
}

// Parse reads a delivery body.
func (p *PolarProvider) Parse(body []byte) (Event, error) { return ParseEvent(body) }
