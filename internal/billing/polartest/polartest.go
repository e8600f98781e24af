// Package polartest is a local stand-in for Polar's API (tests only): it
// speaks the parts of https://polar.sh/docs/api-reference the provider
// uses (checkout sessions, customer sessions, subscription update,
// customer update) with bearer-token authentication and Polar's error
// bodies, and, when a test "pays", sends the order.paid delivery Polar
// would, signed the Standard Webhooks way with the endpoint secret as the
// raw HMAC key (as Polar's SDKs use it).
package polartest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"studio/internal/webhook/sign"
)

// Server is the stand-in.
type Server struct {
	*httptest.Server
	Token      string // the access token it accepts
	Secret     string // the webhook endpoint's secret
	WebhookURL string // where deliveries go (set by the test)
	// Refuse makes the next calls of a route ("POST /v1/checkouts/", ...)
	// answer this status.
	Refuse map[string]int

	mu        sync.Mutex
	checkouts map[string]*checkout
	subs      map[string]*subscription
	customers map[string]string // id -> email
	Requests  []Request         // every API call, in order
}

// Request is one API call as the stand-in received it.
type Request struct {
	Method, Path string
	Body         map[string]any
}

type checkout struct {
	ID, URL, Product, Customer, External, Email string
	Amount                                      *float64
	Metadata                                    map[string]any
	Paid                                        bool
}

type subscription struct {
	ID, Customer      string
	PeriodEnd         time.Time
	CancelAtPeriodEnd bool
}

// New starts the stand-in.
func New(t testing.TB) *Server {
	s := &Server{Token: "polar_oat_test", Secret: "polar_whs_" + strings.ReplaceAll(uuid.NewString(), "-", ""),
		Refuse: map[string]int{}, checkouts: map[string]*checkout{}, subs: map[string]*subscription{}, customers: map[string]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/checkouts/", s.createCheckout)
	mux.HandleFunc("POST /v1/customer-sessions/", s.createCustomerSession)
	mux.HandleFunc("PATCH /v1/subscriptions/{id}", s.updateSubscription)
	mux.HandleFunc("PATCH /v1/customers/{id}", s.updateCustomer)
	s.Server = httptest.NewServer(s.auth(mux))
	t.Cleanup(s.Close)
	return s
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// auth checks the bearer token as Polar does, records the call, and
// answers a refusal the test asked for.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+s.Token {
			reply(w, http.StatusUnauthorized, map[string]any{"error": "invalid_token", "error_description": "The access token provided is expired, revoked, malformed, or invalid for other reasons."})
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		s.mu.Lock()
		s.Requests = append(s.Requests, Request{r.Method, r.URL.Path, body})
		key := r.Method + " " + r.URL.Path
		if strings.HasPrefix(r.URL.Path, "/v1/subscriptions/") {
			key = r.Method + " /v1/subscriptions/{id}"
		} else if strings.HasPrefix(r.URL.Path, "/v1/customers/") {
			key = r.Method + " /v1/customers/{id}"
		}
		refuse := s.Refuse[key]
		s.mu.Unlock()
		if refuse != 0 {
			reply(w, refuse, map[string]any{"error": "Refused", "detail": "refused by the test"})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(raw))
		next.ServeHTTP(w, r)
	})
}

func validation(w http.ResponseWriter, loc, msg string) {
	reply(w, http.StatusUnprocessableEntity, map[string]any{"error": "RequestValidationError",
		"detail": []map[string]any{{"loc": []string{"body", loc}, "msg": msg, "type": "value_error"}}})
}

func (s *Server) createCheckout(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Products           []string       `json:"products"`
		SuccessURL         string         `json:"success_url"`
		Metadata           map[string]any `json:"metadata"`
		CustomerID         string         `json:"customer_id"`
		ExternalCustomerID string         `json:"external_customer_id"`
		CustomerEmail      string         `json:"customer_email"`
		Amount             *float64       `json:"amount"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || len(in.Products) == 0 {
		validation(w, "products", "Field required")
		return
	}
	if in.Amount != nil && (*in.Amount < 50 || *in.Amount > 99999999) {
		validation(w, "amount", "Input should be between 50 and 99999999")
		return
	}
	c := &checkout{ID: uuid.NewString(), Product: in.Products[0], Customer: in.CustomerID, External: in.ExternalCustomerID,
		Email: in.CustomerEmail, Amount: in.Amount, Metadata: in.Metadata}
	c.URL = s.URL + "/checkout/polar_c_" + c.ID
	s.mu.Lock()
	s.checkouts[c.ID] = c
	s.mu.Unlock()
	reply(w, http.StatusCreated, map[string]any{"id": c.ID, "url": c.URL, "status": "open", "client_secret": "polar_c_" + c.ID,
		"product_id": c.Product, "products": []map[string]any{{"id": c.Product}}, "metadata": c.Metadata, "amount": c.Amount,
		"success_url": in.SuccessURL, "customer_id": nilIfEmpty(c.Customer), "expires_at": time.Now().Add(time.Hour).UTC()})
}

func (s *Server) createCustomerSession(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CustomerID string `json:"customer_id"`
		ReturnURL  string `json:"return_url"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	s.mu.Lock()
	_, ok := s.customers[in.CustomerID]
	s.mu.Unlock()
	if !ok {
		validation(w, "customer_id", "Customer does not exist.")
		return
	}
	tok := "polar_cst_" + strings.ReplaceAll(uuid.NewString(), "-", "")
	reply(w, http.StatusCreated, map[string]any{"id": uuid.NewString(), "token": tok, "customer_id": in.CustomerID,
		"return_url": in.ReturnURL, "expires_at": time.Now().Add(time.Hour).UTC(),
		"customer_portal_url": s.URL + "/portal?customer_session_token=" + tok})
}

func (s *Server) updateSubscription(w http.ResponseWriter, r *http.Request) {
	var in map[string]any
	_ = json.NewDecoder(r.Body).Decode(&in)
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.subs[r.PathValue("id")]
	if !ok {
		reply(w, http.StatusNotFound, map[string]any{"error": "ResourceNotFound", "detail": "Not found"})
		return
	}
	if v, ok := in["cancel_at_period_end"].(bool); ok {
		if v && sub.CancelAtPeriodEnd {
			reply(w, http.StatusForbidden, map[string]any{"error": "AlreadyCanceledSubscription", "detail": "This subscription is already canceled or will be at the end of the period."})
			return
		}
		sub.CancelAtPeriodEnd = v
	}
	reply(w, http.StatusOK, s.subscriptionJSON(sub))
}

func (s *Server) subscriptionJSON(sub *subscription) map[string]any {
	out := map[string]any{"id": sub.ID, "status": "active", "customer_id": sub.Customer, "recurring_interval": "month",
		"current_period_end": sub.PeriodEnd, "cancel_at_period_end": sub.CancelAtPeriodEnd, "ends_at": nil}
	if sub.CancelAtPeriodEnd {
		out["ends_at"] = sub.PeriodEnd
	}
	return out
}

func (s *Server) updateCustomer(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Email string `json:"email"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.customers[r.PathValue("id")]; !ok {
		reply(w, http.StatusNotFound, map[string]any{"error": "ResourceNotFound", "detail": "Not found"})
		return
	}
	if !strings.Contains(in.Email, "@") {
		validation(w, "email", "value is not a valid email address")
		return
	}
	s.customers[r.PathValue("id")] = in.Email
	reply(w, http.StatusOK, map[string]any{"id": r.PathValue("id"), "email": in.Email})
}

// Pay completes a checkout as a customer would: Polar creates the customer
// (and, for a recurring product, the subscription) and sends order.paid
// for netCents (the price after discounts, before tax; no tax here). It
// answers the webhook route's status.
func (s *Server) Pay(t testing.TB, checkoutID string, recurring bool, netCents int64) int {
	t.Helper()
	return s.Send(t, "order.paid", s.Order(t, checkoutID, recurring, netCents))
}

// Order completes a checkout as Pay does and answers the order.paid data
// Polar would send, without sending it: a test may change it, send it
// several times or late (Send, SendAt).
func (s *Server) Order(t testing.TB, checkoutID string, recurring bool, netCents int64) map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.checkouts[checkoutID]
	if !ok {
		t.Fatalf("polartest: no checkout %s", checkoutID)
	}
	customer := c.Customer
	if customer == "" {
		customer = uuid.NewString()
		s.customers[customer] = c.Email
		c.Customer = customer
	}
	c.Paid = true
	order := orderJSON("purchase", netCents, customer)
	order["product_id"], order["checkout_id"], order["metadata"] = c.Product, c.ID, c.Metadata
	order["customer"] = map[string]any{"id": customer, "external_id": nilIfEmpty(c.External), "email": c.Email}
	if recurring {
		sub := &subscription{ID: uuid.NewString(), Customer: customer, PeriodEnd: time.Now().UTC().AddDate(0, 1, 0).Truncate(time.Second)}
		s.subs[sub.ID] = sub
		order["billing_reason"], order["subscription_id"], order["subscription"] = "subscription_create", sub.ID, s.subscriptionJSON(sub)
	}
	return order
}

// orderJSON is the part of Polar's Order every order.paid carries: its
// amounts (subtotal, discount, net = subtotal - discount, tax, total = net
// + tax; cents), currency and customer. No checkout, no subscription.
func orderJSON(reason string, netCents int64, customer string) map[string]any {
	return map[string]any{"id": uuid.NewString(), "status": "paid", "paid": true, "billing_reason": reason,
		"subtotal_amount": netCents, "discount_amount": 0, "net_amount": netCents, "tax_amount": 0, "total_amount": netCents,
		"applied_balance_amount": 0, "due_amount": 0, "refunded_amount": 0, "refunded_tax_amount": 0, "currency": "usd",
		"customer_id": customer, "checkout_id": nil, "subscription_id": nil, "subscription": nil, "discount_id": nil,
		"created_at": time.Now().UTC(), "modified_at": nil}
}

// Renew charges a subscription's next period: order.paid with
// billing_reason subscription_cycle and no checkout.
func (s *Server) Renew(t testing.TB, subscriptionID string, netCents int64) int {
	t.Helper()
	s.mu.Lock()
	sub := s.subs[subscriptionID]
	sub.PeriodEnd = sub.PeriodEnd.AddDate(0, 1, 0)
	order := orderJSON("subscription_cycle", netCents, sub.Customer)
	order["subscription_id"], order["subscription"] = sub.ID, s.subscriptionJSON(sub)
	s.mu.Unlock()
	return s.Send(t, "order.paid", order)
}

// Subscriptions lists the subscription ids, for tests.
func (s *Server) Subscriptions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for id := range s.subs {
		out = append(out, id)
	}
	return out
}

// Send signs an event that happens now and posts it to WebhookURL; it
// answers the status.
func (s *Server) Send(t testing.TB, typ string, data any) int {
	t.Helper()
	st, _ := s.SendAt(t, typ, data, time.Now())
	return st
}

// SendAt signs an event that happened at (the envelope's timestamp) and
// posts it now, under a new webhook-id, as Polar's late or repeated
// deliveries arrive; it answers the status and the body.
func (s *Server) SendAt(t testing.TB, typ string, data any, at time.Time) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"type": typ, "timestamp": at.UTC(), "data": data})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.WebhookURL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range sign.RawKey([]byte(s.Secret)).Headers("msg_"+uuid.NewString(), time.Now(), body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
