package httpapi

import (
	"encoding/json"
	"net/http"
	"regexp"

	"studio/internal/auth"
	"studio/internal/chat"
	"studio/internal/errs"
	"studio/internal/text"
)

// ChatRequest documents the body of POST /api/chat (SPEC §4.12).
type ChatRequest struct {
	Message   string              `json:"message" required:"true" minLength:"1" maxLength:"4000"`
	Draft     *chat.Draft         `json:"draft,omitempty" description:"The draft look as the client holds it; the empty draft when absent."`
	History   []chat.HistoryEntry `json:"history,omitempty" maxItems:"200" description:"Earlier lines of the conversation, oldest first; the last 20 reach the model."`
	Screen    map[string]any      `json:"screen,omitempty" description:"What the director is looking at, as the client describes it."`
	TurnID    string              `json:"turnId,omitempty" maxLength:"200" description:"The client's id for this turn, echoed on the socket; a new id when absent."`
	SessionID string              `json:"sessionId,omitempty" description:"The conversation; a new one is created with the turn when absent."`
}

// chatWire is how POST /api/chat is read: the draft raw, so that a draft
// of the wrong shape is BAD_DRAFT rather than BAD_BODY.
type chatWire struct {
	Message   *string             `json:"message"`
	Draft     json.RawMessage     `json:"draft"`
	History   []chat.HistoryEntry `json:"history"`
	Screen    json.RawMessage     `json:"screen"`
	TurnID    string              `json:"turnId"`
	SessionID string              `json:"sessionId"`
}

// ApplyRequest documents the body of POST /api/chat/apply.
type ApplyRequest struct {
	Draft    *chat.Draft    `json:"draft,omitempty" description:"The draft look; the empty draft when absent."`
	Mutation *chat.Mutation `json:"mutation" required:"true" description:"The change; post an answer's inverse to undo it, the mutation again to redo it."`
}

type applyWire struct {
	Draft    json.RawMessage `json:"draft"`
	Mutation json.RawMessage `json:"mutation"`
}

// ApplyBody is the answer of POST /api/chat/apply.
type ApplyBody struct {
	Draft   chat.Draft     `json:"draft"`
	Applied []chat.Applied `json:"applied" description:"The one mutation applied, with its inverse."`
}

// SessionsBody lists conversations.
type SessionsBody struct {
	Sessions []chat.Session `json:"sessions"`
}

// SessionBody is one conversation.
type SessionBody struct {
	Session chat.Session `json:"session"`
}

// SessionRequest is the body of POST /api/chat/sessions.
type SessionRequest struct {
	Title string `json:"title,omitempty" maxLength:"80" description:"Cut to 80 characters."`
}

// TurnsBody is a conversation's turns, oldest first.
type TurnsBody struct {
	Turns []chat.Turn `json:"turns"`
}

// WarmBody answers POST /api/chat/context/warm.
type WarmBody struct {
	Warming bool `json:"warming"`
}

// errBadTurnID refuses a turnId that is not a well-formed id.
var errBadTurnID = errs.Msg(errs.BadBody, "turnId must be 1 to 200 of A-Z a-z 0-9 . _ - ~ :.")

var turnIDPattern = regexp.MustCompile(`^[A-Za-z0-9._~:-]{1,200}$`)

func (s *Server) chat(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[chatWire](w, r)
	if err != nil {
		return err
	}
	if in.Message == nil {
		return chat.ErrBadMessage
	}
	msg, err := chat.CheckMessage(*in.Message)
	if err != nil {
		return err
	}
	d, err := chat.ParseDraft(in.Draft)
	if err != nil {
		return err
	}
	if !text.CleanValue(&d) {
		return errs.Msg(chat.ErrBadDraft, "The draft holds a control character.")
	}
	for _, h := range in.History {
		if h.Role != "director" && h.Role != "studio" {
			return errs.Msg(errs.BadBody, "history roles are director or studio.")
		}
	}
	if in.TurnID != "" && !turnIDPattern.MatchString(in.TurnID) {
		return errBadTurnID
	}
	if in.SessionID != "" && !turnIDPattern.MatchString(in.SessionID) {
		return chat.ErrSessionNotFound
	}
	reply, err := s.svc.Chat.Chat(r.Context(), auth.From(r.Context()), chat.Request{Message: msg, Draft: d, History: in.History,
		Screen: in.Screen, TurnID: in.TurnID, SessionID: in.SessionID})
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, reply)
}

func (s *Server) chatApply(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[applyWire](w, r)
	if err != nil {
		return err
	}
	d, err := chat.ParseDraft(in.Draft)
	if err != nil {
		return err
	}
	m, err := chat.ParseMutation(in.Mutation)
	if err != nil {
		return err
	}
	if !text.CleanValue(&d) || !text.CleanValue(&m) {
		return errs.Msg(errs.BadBody, "Text may not hold control characters.")
	}
	out, applied, err := s.svc.Chat.Apply(r.Context(), auth.From(r.Context()), d, m)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, ApplyBody{Draft: out, Applied: []chat.Applied{applied}})
}

func (s *Server) chatWarm(w http.ResponseWriter, r *http.Request) error {
	if err := s.svc.Chat.Warm(r.Context(), auth.From(r.Context())); err != nil {
		return err
	}
	return encode(w, http.StatusAccepted, WarmBody{Warming: true})
}

func (s *Server) chatSessions(w http.ResponseWriter, r *http.Request) error {
	ss, err := s.svc.Chat.Sessions(r.Context(), auth.From(r.Context()))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, SessionsBody{Sessions: ss})
}

func (s *Server) createChatSession(w http.ResponseWriter, r *http.Request) error {
	var in SessionRequest
	if r.ContentLength != 0 {
		var err error
		if in, err = decode[SessionRequest](w, r); err != nil {
			return err
		}
	}
	sess, err := s.svc.Chat.CreateSession(r.Context(), auth.From(r.Context()), in.Title)
	if err != nil {
		return err
	}
	return encode(w, http.StatusCreated, SessionBody{Session: sess})
}

func (s *Server) chatTurns(w http.ResponseWriter, r *http.Request) error {
	ts, err := s.svc.Chat.Turns(r.Context(), auth.From(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, TurnsBody{Turns: ts})
}

// chatRoutes are the routes of the studio assistant (SPEC §4.12).
func (s *Server) chatRoutes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/chat", Class: KeyOrSession, Tag: "chat", Summary: "Talk to the studio: the assistant changes the draft with typed mutations; free",
			In: ChatRequest{}, Out: []Out{{Status: 200, Body: chat.Reply{}}},
			Errors:  []*errs.Error{chat.ErrBadMessage, chat.ErrBadDraft, chat.ErrSessionNotFound, chat.ErrUnavailable, chat.ErrNotConfigured, chat.ErrNeedsBilling},
			Handler: s.chat},
		{Method: "POST", Path: "/api/chat/apply", Class: KeyOrSession, Tag: "chat", Summary: "Apply one mutation to a draft (undo posts the inverse, redo the mutation); works offline",
			In: ApplyRequest{}, Out: []Out{{Status: 200, Body: ApplyBody{}}},
			Errors: []*errs.Error{chat.ErrBadDraft, chat.ErrBadMutation, chat.ErrAssetNotFound, chat.ErrCannotApply}, Handler: s.chatApply},
		{Method: "POST", Path: "/api/chat/context/warm", Class: KeyOrSession, Tag: "chat", Summary: "Prepare what the caller's next turn reads (kept two minutes)",
			Out: []Out{{Status: 202, Body: WarmBody{}}}, Handler: s.chatWarm},
		{Method: "GET", Path: "/api/chat/sessions", Class: KeyOrSession, Tag: "chat", Summary: "The caller's conversations, newest first",
			Out: []Out{{Status: 200, Body: SessionsBody{}}}, Handler: s.chatSessions},
		{Method: "POST", Path: "/api/chat/sessions", Class: KeyOrSession, Tag: "chat", Summary: "Start a conversation",
			In: SessionRequest{}, Out: []Out{{Status: 201, Body: SessionBody{}}}, Handler: s.createChatSession},
		{Method: "GET", Path: "/api/chat/sessions/{id}/turns", Class: KeyOrSession, Tag: "chat", Summary: "A conversation's turns, oldest first, at most 200",
			Out: []Out{{Status: 200, Body: TurnsBody{}}}, Errors: []*errs.Error{chat.ErrSessionNotFound}, NotFound: chat.ErrSessionNotFound, Handler: s.chatTurns},
	}
}
