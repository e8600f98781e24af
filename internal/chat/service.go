package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"studio/internal/ai"
	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/look"
	"studio/internal/memory"
	"studio/internal/ts"
)

// Codes raised by the conversation.
var (
	ErrBadMessage      = errs.New(errs.KindInvalid, "BAD_MESSAGE", "message must be 1 to 4000 characters.")
	ErrSessionNotFound = errs.New(errs.KindNotFound, "CHAT_SESSION_NOT_FOUND", "No such conversation.")
	ErrUnavailable     = errs.New(errs.KindUpstream, "AI_UNAVAILABLE", "The assistant could not answer; try again.")
	ErrNeedsBilling    = errs.New(errs.KindUnavailable, "AI_GATEWAY_NEEDS_BILLING", "The assistant's provider is out of credit.")
	ErrNotConfigured   = ai.ErrNotConfigured
)

// Limits of a conversation (SPEC §8: at most 200 turns returned).
const (
	MaxMessage   = 4000
	MaxHistory   = 20  // recent exchanges sent to the model
	MaxTurns     = 200 // turns a session answers
	MaxTitle     = 80
	catalogSize  = 60 // the house's newest assets the assistant may name
	maxMemories  = 50 // the newest memories in force a turn reads
	maxRounds    = 3  // model calls a turn may take (tool results go back)
	warmLifetime = 2 * time.Minute
)

// Session is a conversation (SPEC §2 Chat session).
type Session struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	CreatedAt  ts.Time `json:"createdAt"`
	LastTurnAt ts.Time `json:"lastTurnAt"`
}

// Turn is one exchange of a session: the director's message, the
// assistant's answer and the mutations it applied.
type Turn struct {
	ID        string    `json:"id" description:"The turn's id (the turnId of POST /api/chat)."`
	Message   string    `json:"message"`
	Text      string    `json:"text"`
	Applied   []Applied `json:"applied"`
	CreatedAt ts.Time   `json:"createdAt"`
}

// HistoryEntry is an earlier line of the conversation the client shows.
type HistoryEntry struct {
	Role string `json:"role" enum:"director,studio" description:"director: the person; studio: the assistant."`
	Text string `json:"text" maxLength:"4000"`
}

// Request is the body of POST /api/chat as the service reads it.
type Request struct {
	Message   string
	Draft     Draft
	History   []HistoryEntry
	Screen    json.RawMessage
	TurnID    string
	SessionID string
}

// Reply is the answer of POST /api/chat.
type Reply struct {
	Text      string    `json:"text"`
	Applied   []Applied `json:"applied"`
	Mirror    Draft     `json:"mirror" description:"The draft after the applied mutations: the state every tab mirrors."`
	TurnID    string    `json:"turnId"`
	SessionID string    `json:"sessionId"`
	Persisted bool      `json:"persisted" description:"False when the turn could not be kept in its session (the answer stands)."`
}

// Store is what the conversation needs from persistence.
type Store interface {
	Pieces(ctx context.Context, house string, ids []string) (map[string]look.Piece, error)
	RecentPieces(ctx context.Context, house string, n int) ([]look.Piece, error)
	InsertChatSession(ctx context.Context, house, user string, s Session) error
	ChatSessions(ctx context.Context, house, user string) ([]Session, error)
	ChatSession(ctx context.Context, house, user, id string) (Session, error)
	// AppendChatTurn keeps a turn in its session and moves the session's
	// lastTurnAt, creating the session first when create is set, and
	// answers the session the turn belongs to. A turn id the house already
	// used is not kept (kept false); the session answered exists all the
	// same (a retried first turn of the same user answers its session).
	AppendChatTurn(ctx context.Context, house, user string, s Session, create bool, t Turn) (session string, kept bool, err error)
	ChatTurns(ctx context.Context, house, user, session string, limit int) ([]Turn, error)
}

// Memories gives the memories in force for a caller and learns from the
// choices of the caller's kept turns (memory/learn.go).
type Memories interface {
	InForce(ctx context.Context, p auth.Principal) ([]memory.Memory, error)
	Observe(ctx context.Context, p auth.Principal, obs []memory.Observation) ([]memory.Memory, error)
}

// Publisher sends a message to the job sockets one user opened in a house:
// a conversation is its person's, so a colleague's sockets never hear it.
type Publisher interface {
	PublishTo(ctx context.Context, house, user string, msg []byte)
}

// Endpoint is what the conversation asks of the AI endpoint (package
// ai/openai implements it): whether it is set, and one turn of a
// conversation with function tools.
type Endpoint interface {
	Configured() bool
	Chat(ctx context.Context, messages []ai.Message, tools []ai.Tool) (ai.Reply, ai.Usage, error)
}

// Service runs the conversation.
type Service struct {
	store    Store
	ai       Endpoint
	memories Memories
	pub      Publisher
	log      *slog.Logger
	now      func() time.Time

	mu   sync.Mutex
	warm map[string]warmed // house/user -> the context prepared for the next turn
}

type warmed struct {
	catalog []look.Piece
	until   time.Time
}

// NewService returns the chat service.
func NewService(store Store, client Endpoint, memories Memories, pub Publisher, log *slog.Logger, now func() time.Time) *Service {
	return &Service{store: store, ai: client, memories: memories, pub: pub, log: log, now: now, warm: map[string]warmed{}}
}

// checkAssets answers ASSET_NOT_FOUND unless every id is a live asset of
// the house; it returns what it found.
func (s *Service) checkAssets(ctx context.Context, house string, ids []string) (map[string]look.Piece, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := s.store.Pieces(ctx, house, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := found[id]; !ok {
			return nil, ErrAssetNotFound
		}
	}
	return found, nil
}

// Apply applies one mutation to a draft (POST /api/chat/apply): pure but
// for the check that the assets named are the house's. A piece added
// without a label takes its asset's name.
func (s *Service) Apply(ctx context.Context, p auth.Principal, d Draft, m Mutation) (Draft, Applied, error) {
	found, err := s.checkAssets(ctx, p.HouseID, append(d.AssetIDs(), m.AssetIDs()...))
	if err != nil {
		return Draft{}, Applied{}, err
	}
	if m.Op == "add-item" && m.Label == "" {
		m.Label = cleanLabel(found[m.AssetID].Name)
	}
	return Apply(d, m)
}

// Sessions lists the caller's conversations in the house, newest first.
func (s *Service) Sessions(ctx context.Context, p auth.Principal) ([]Session, error) {
	return s.store.ChatSessions(ctx, p.HouseID, p.UserID)
}

// CreateSession starts an empty conversation.
func (s *Service) CreateSession(ctx context.Context, p auth.Principal, title string) (Session, error) {
	now := ts.Of(s.now())
	sess := Session{ID: uuid.Must(uuid.NewV7()).String(), Title: clip(strings.TrimSpace(title), MaxTitle), CreatedAt: now, LastTurnAt: now}
	if err := s.store.InsertChatSession(ctx, p.HouseID, p.UserID, sess); err != nil {
		return Session{}, err
	}
	return sess, nil
}

// Turns returns a conversation's turns, oldest first, at most 200 (the
// newest 200 when there are more).
func (s *Service) Turns(ctx context.Context, p auth.Principal, id string) ([]Turn, error) {
	if _, err := s.session(ctx, p, id); err != nil {
		return nil, err
	}
	return s.store.ChatTurns(ctx, p.HouseID, p.UserID, id, MaxTurns)
}

func (s *Service) session(ctx context.Context, p auth.Principal, id string) (Session, error) {
	sess, err := s.store.ChatSession(ctx, p.HouseID, p.UserID, id)
	if errors.Is(err, errs.NotFound) {
		return Session{}, ErrSessionNotFound
	}
	return sess, err
}

// Warm prepares what the caller's next turn reads (the house's catalog of
// assets), kept for two minutes or until that turn takes it.
func (s *Service) Warm(ctx context.Context, p auth.Principal) error {
	catalog, err := s.store.RecentPieces(ctx, p.HouseID, catalogSize)
	if err != nil {
		return err
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, w := range s.warm {
		if now.After(w.until) {
			delete(s.warm, k)
		}
	}
	s.warm[p.HouseID+"/"+p.UserID] = warmed{catalog: catalog, until: now.Add(warmLifetime)}
	return nil
}

func (s *Service) catalog(ctx context.Context, p auth.Principal) ([]look.Piece, error) {
	key := p.HouseID + "/" + p.UserID
	s.mu.Lock()
	w, ok := s.warm[key]
	delete(s.warm, key)
	s.mu.Unlock()
	if ok && !s.now().After(w.until) {
		return w.catalog, nil
	}
	return s.store.RecentPieces(ctx, p.HouseID, catalogSize)
}

// CheckMessage trims and bounds the director's message.
func CheckMessage(m string) (string, error) {
	m = strings.TrimSpace(m)
	if m == "" || utf8.RuneCountInString(m) > MaxMessage {
		return "", ErrBadMessage
	}
	return m, nil
}

// Chat runs one turn: the model reads the message, the draft, the recent
// history, the house's catalog and the memories in force, and changes the
// draft with tool calls; the mutations it chose are applied, the turn is
// kept in its session (created when none is named) and each applied
// mutation is pushed on the job socket. Nothing is charged.
func (s *Service) Chat(ctx context.Context, p auth.Principal, in Request) (Reply, error) {
	if s.ai == nil || !s.ai.Configured() {
		return Reply{}, ErrNotConfigured
	}
	var sess Session
	create := in.SessionID == ""
	if create {
		now := ts.Of(s.now())
		sess = Session{ID: uuid.Must(uuid.NewV7()).String(), Title: clip(in.Message, MaxTitle), CreatedAt: now, LastTurnAt: now}
	} else {
		var err error
		if sess, err = s.session(ctx, p, in.SessionID); err != nil {
			return Reply{}, err
		}
	}
	if _, err := s.checkAssets(ctx, p.HouseID, in.Draft.AssetIDs()); err != nil {
		return Reply{}, errs.Msg(ErrBadDraft, "The draft names an asset that is not one of this house's.")
	}
	catalog, err := s.catalog(ctx, p)
	if err != nil {
		return Reply{}, err
	}
	mems, err := s.memories.InForce(ctx, p)
	if err != nil {
		return Reply{}, err
	}
	draft, applied, text, err := s.converse(ctx, p, in, catalog, mems)
	if err != nil {
		return Reply{}, err
	}
	turnID := in.TurnID
	if turnID == "" {
		turnID = uuid.Must(uuid.NewV7()).String()
	}
	out := Reply{Text: text, Applied: applied, Mirror: draft, TurnID: turnID, SessionID: sess.ID}
	turn := Turn{ID: turnID, Message: in.Message, Text: text, Applied: applied, CreatedAt: ts.Of(s.now())}
	sess.LastTurnAt = turn.CreatedAt
	switch id, kept, err := s.store.AppendChatTurn(ctx, p.HouseID, p.UserID, sess, create, turn); {
	case err != nil:
		// The answer stands; the session answered may not exist, so the
		// next turn should start a new one (persisted false says so).
		s.log.WarnContext(ctx, "keep a chat turn", "session", sess.ID, "turn", turnID, "err", err)
	case !kept:
		out.SessionID = id
		s.log.InfoContext(ctx, "chat turn id already used; answered, not kept", "session", id, "turn", turnID)
	default:
		out.SessionID, out.Persisted = id, true
		// Only a kept turn is evidence: its id is new to the house, so
		// a retried turn never counts twice.
		if obs := Observations(applied); len(obs) > 0 {
			if _, err := s.memories.Observe(ctx, p, obs); err != nil {
				s.log.WarnContext(ctx, "learn from a chat turn", "turn", turnID, "err", err)
			}
		}
	}
	for i, a := range applied {
		s.push(ctx, p, out, i, a)
	}
	return out, nil
}

// pushMessage is the socket message of an applied mutation (DECISIONS §1b).
type pushMessage struct {
	Type      string   `json:"type"`
	TurnID    string   `json:"turnId"`
	SessionID string   `json:"sessionId"`
	Index     int      `json:"index"`
	Count     int      `json:"count"`
	Mutation  Mutation `json:"mutation"`
	Inverse   Mutation `json:"inverse"`
}

func (s *Service) push(ctx context.Context, p auth.Principal, r Reply, i int, a Applied) {
	msg, err := json.Marshal(pushMessage{Type: "chat.applied", TurnID: r.TurnID, SessionID: r.SessionID, Index: i, Count: len(r.Applied),
		Mutation: a.Mutation, Inverse: a.Inverse})
	if err != nil {
		s.log.ErrorContext(ctx, "encode a chat push", "err", err)
		return
	}
	s.pub.PublishTo(ctx, p.HouseID, p.UserID, msg)
}

// converse asks the model, applies the tools it calls and gives the tool
// results back until it answers in words (at most maxRounds calls).
func (s *Service) converse(ctx context.Context, p auth.Principal, in Request, catalog []look.Piece, mems []memory.Memory) (Draft, []Applied, string, error) {
	draft := in.Draft
	msgs := []ai.Message{{Role: ai.RoleSystem, Text: systemPrompt(catalog, mems)}}
	hist := in.History
	if len(hist) > MaxHistory {
		hist = hist[len(hist)-MaxHistory:]
	}
	for _, h := range hist {
		role := ai.RoleAssistant
		if h.Role == "director" {
			role = ai.RoleUser
		}
		msgs = append(msgs, ai.Message{Role: role, Text: h.Text})
	}
	msgs = append(msgs, ai.Message{Role: ai.RoleUser, Text: userPrompt(in, draft)})
	applied := []Applied{}
	tools := Tools()
	for round := 0; round < maxRounds; round++ {
		reply, _, err := s.ai.Chat(ctx, msgs, tools)
		if err != nil {
			return Draft{}, nil, "", chatError(err)
		}
		if len(reply.ToolCalls) == 0 {
			return draft, applied, strings.TrimSpace(reply.Text), nil
		}
		msgs = append(msgs, ai.Message{Role: ai.RoleAssistant, Text: reply.Text, ToolCalls: reply.ToolCalls})
		for _, tc := range reply.ToolCalls {
			result := "applied"
			next, a, err := s.applyCall(ctx, p, draft, tc)
			if err != nil {
				result = "refused: " + err.Error()
			} else {
				draft = next
				applied = append(applied, a)
			}
			msgs = append(msgs, ai.Message{Role: ai.RoleTool, ToolCallID: tc.ID, Text: result})
		}
		if text := strings.TrimSpace(reply.Text); text != "" {
			return draft, applied, text, nil
		}
	}
	return draft, applied, summary(applied), nil
}

// applyCall applies one tool call: its arguments become a mutation, the
// assets it names must be the house's.
func (s *Service) applyCall(ctx context.Context, p auth.Principal, d Draft, tc ai.ToolCall) (Draft, Applied, error) {
	m, err := FromToolCall(tc)
	if err != nil {
		return Draft{}, Applied{}, err
	}
	return s.Apply(ctx, p, d, m)
}

// chatError maps the endpoint's errors to the chat route's own codes.
func chatError(err error) error {
	switch {
	case errors.Is(err, ai.ErrNotConfigured):
		return err
	case errors.Is(err, ai.ErrNeedsBilling):
		return errs.Wrap(ErrNeedsBilling, err)
	case errors.Is(err, ai.ErrFailed), errors.Is(err, ai.ErrBadOutput):
		return errs.Wrap(ErrUnavailable, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return errs.Wrap(ErrUnavailable, err)
}

func systemPrompt(catalog []look.Piece, mems []memory.Memory) string {
	var b strings.Builder
	b.WriteString("You are the studio assistant of a fashion house. The director composes a look (a draft): a cast model, " +
		"pieces in roles with one hero, a background, an aesthetic, a quality tier and an output destination. " +
		"Change the draft only by calling the tools, one call per change, naming assets by the ids listed below. " +
		"Then answer in one or two short sentences saying what changed.\n")
	if len(mems) > maxMemories {
		mems = mems[:maxMemories] // the newest
	}
	var told, observed []memory.Memory
	for _, m := range mems {
		if m.Kind == memory.KindObserved {
			observed = append(observed, m)
		} else {
			told = append(told, m)
		}
	}
	if len(told) > 0 {
		b.WriteString("\nWhat the house and this director asked the studio to remember (follow it):\n")
		for _, m := range told {
			fmt.Fprintf(&b, "- (%s, %s) %s\n", m.Scope, m.MemoryClass, m.Statement)
		}
	}
	if len(observed) > 0 {
		b.WriteString("\nWhat the studio noticed this director choosing again and again (a default when they do not say; " +
			"what they say now and what they asked to remember win):\n")
		for _, m := range observed {
			fmt.Fprintf(&b, "- (%s, %s, observed in %d turns) %s\n", m.Scope, m.MemoryClass, m.EvidenceCount, m.Statement)
		}
	}
	b.WriteString("\nThe house's assets (id, kind, name), newest first:\n")
	if len(catalog) == 0 {
		b.WriteString("(none)\n")
	}
	for _, pc := range catalog {
		kind := pc.Kind
		if kind == "" {
			kind = "unfiled"
		}
		fmt.Fprintf(&b, "- %s (%s) %s\n", pc.ID, kind, clip(pc.Name, 80))
	}
	return b.String()
}

func userPrompt(in Request, d Draft) string {
	draft, _ := json.Marshal(d)
	var b strings.Builder
	fmt.Fprintf(&b, "The draft now: %s\n", draft)
	if len(in.Screen) > 0 && string(in.Screen) != "null" {
		fmt.Fprintf(&b, "What the director is looking at: %s\n", clip(string(in.Screen), 2000))
	}
	fmt.Fprintf(&b, "The director says: %s", in.Message)
	return b.String()
}

func summary(applied []Applied) string {
	if len(applied) == 0 {
		return "Nothing changed."
	}
	ops := make([]string, len(applied))
	for i, a := range applied {
		ops[i] = a.Mutation.Op
	}
	return "Done: " + strings.Join(ops, ", ") + "."
}

// clip cuts s to at most n runes.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n]))
}
