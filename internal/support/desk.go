package support

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/mail"
	"studio/internal/ts"
)

// The desk is the operators' side of the help desk (issue 28): the tickets
// of every house, each thread with its internal notes, the desk's replies
// (author support: the member reads them in the thread and gets them by
// e-mail), internal notes (author note: never shown to the member), and
// closing and reopening. Only a platform administrator's session uses it.

// StatusClosed is a ticket the desk closed: the member still reads its
// thread; a reply from either side opens it again.
const StatusClosed = "closed"

// MaxReply is the longest reply or note.
const MaxReply = MaxBody

// TemplateReply is the letter that carries a desk reply.
const TemplateReply = "support-reply"

// Codes of the desk.
var (
	ErrNoContent = errs.Msg(errs.BadBody, "content must be text of 1 to 10,000 characters.")
	// ErrNoted refuses a reply to a noted report: its author asked for none
	// and has no thread to read it in. A note may still be added.
	ErrNoted         = errs.New(errs.KindConflict, "TICKET_NOTED", "The report asked for no reply and has no thread; add a note instead.")
	ErrBadDeskStatus = errs.Msg(errs.BadStatus, "status must be open, closed, noted or all.")
)

// DeskStatuses are the desk list's filters.
var DeskStatuses = []string{StatusOpen, StatusClosed, StatusNoted, "all"}

// DeskTicket is a ticket as the operators list it.
type DeskTicket struct {
	ID            string   `json:"id"`
	Status        string   `json:"status" enum:"open,closed,noted"`
	Summary       string   `json:"summary"`
	Topic         *string  `json:"topic"`
	Source        string   `json:"source" enum:"app,bridge" description:"app: opened by a seat; bridge: handed over by the support assistant."`
	Reason        *string  `json:"reason" description:"The bridge's reason, for an escalation."`
	HouseID       *string  `json:"houseId"`
	HouseName     *string  `json:"houseName"`
	UserID        *string  `json:"userId"`
	ContactEmail  *string  `json:"contactEmail" description:"Where a reply is mailed: the address given with the ticket, else its author's."`
	MessageCount  int      `json:"messageCount" description:"Messages the member sees (theirs and the desk's replies)."`
	NoteCount     int      `json:"noteCount" description:"Internal notes."`
	AwaitingReply bool     `json:"awaitingReply" description:"The member wrote last: the desk owes an answer."`
	CreatedAt     ts.Time  `json:"createdAt"`
	LastMessageAt ts.Time  `json:"lastMessageAt"`
	ClosedAt      *ts.Time `json:"closedAt"`
}

// DeskMessage is a message as the desk reads it, notes included.
type DeskMessage struct {
	ID         string   `json:"id"`
	Content    string   `json:"content"`
	Author     string   `json:"author" enum:"customer,support,note"`
	AuthorName string   `json:"authorName"`
	CreatedAt  ts.Time  `json:"createdAt"`
	ReadAt     *ts.Time `json:"readAt" description:"When the member opened a desk reply; null for other messages or unread."`
}

// DeskThread is a ticket with every message, oldest first.
type DeskThread struct {
	Ticket   DeskTicket    `json:"ticket"`
	Messages []DeskMessage `json:"messages"`
}

// DeskQuery filters the desk's list.
type DeskQuery struct {
	Status string `query:"status" enum:"open,closed,noted,all" default:"open" refuse:"BAD_STATUS" description:"open: tickets awaiting the desk or the member; closed; noted: reports that asked for no reply; all."`
	Limit  int    `query:"limit" minimum:"1" maximum:"200" default:"50" refuse:"BAD_LIMIT"`
}

// ReplyRequest is the body of a desk reply or note.
type ReplyRequest struct {
	Content string `json:"content" required:"true" maxLength:"10000"`
}

// Validate trims the content and checks its length.
func (r *ReplyRequest) Validate() error {
	r.Content = strings.TrimSpace(r.Content)
	if r.Content == "" || utf8.RuneCountInString(r.Content) > MaxReply {
		return ErrNoContent
	}
	return nil
}

// DeskStore is what the desk needs from persistence (part of Store).
type DeskStore interface {
	// DeskTickets lists tickets of every house of the status ("all": any),
	// the latest message first.
	DeskTickets(ctx context.Context, status string, limit int) ([]DeskTicket, error)
	// DeskThread returns a ticket with every message; NOT_FOUND otherwise.
	DeskThread(ctx context.Context, id string) (DeskThread, error)
	// DeskAppend adds a desk message (support or note) to a ticket and
	// returns the ticket; a support reply moves its latest message and
	// opens it again when it was closed. NOT_FOUND when there is none.
	DeskAppend(ctx context.Context, id string, m Message) (DeskTicket, error)
	// SetClosed closes a ticket at at, or opens it again when at is nil;
	// the same twice changes nothing. NOT_FOUND when there is none.
	SetClosed(ctx context.Context, id string, at *time.Time) (DeskTicket, error)
}

// DeskList lists the tickets of every house.
func (s *Service) DeskList(ctx context.Context, p auth.Principal, q DeskQuery) ([]DeskTicket, error) {
	if err := p.MayOperate(); err != nil {
		return nil, err
	}
	if q.Status == "" {
		q.Status = StatusOpen
	}
	if !slices.Contains(DeskStatuses, q.Status) {
		return nil, errs.With(ErrBadDeskStatus, "legal", DeskStatuses)
	}
	if q.Limit == 0 {
		q.Limit = 50
	}
	if q.Limit < 1 || q.Limit > 200 {
		return nil, errs.BadLimit
	}
	return s.store.DeskTickets(ctx, q.Status, q.Limit)
}

// DeskRead returns a ticket's whole thread, internal notes included.
// Reading it marks nothing: the member's unread count is about the
// member's reading.
func (s *Service) DeskRead(ctx context.Context, p auth.Principal, id string) (DeskThread, error) {
	if err := p.MayOperate(); err != nil {
		return DeskThread{}, err
	}
	return s.store.DeskThread(ctx, id)
}

// Reply answers a ticket as the desk: the member reads it in the thread
// (author support) and gets it by e-mail. A closed ticket opens again; a
// noted report is refused (TICKET_NOTED). A letter that cannot be
// delivered does not undo the reply (the e-mail log records it as failed).
func (s *Service) Reply(ctx context.Context, p auth.Principal, id string, in ReplyRequest) (DeskThread, error) {
	if err := p.MayOperate(); err != nil {
		return DeskThread{}, err
	}
	th, err := s.store.DeskThread(ctx, id)
	if err != nil {
		return DeskThread{}, err
	}
	if th.Ticket.Status == StatusNoted {
		return DeskThread{}, ErrNoted
	}
	m := Message{ID: newID(), Content: in.Content, Author: AuthorSupport, AuthorName: DeskName, CreatedAt: ts.Of(s.now())}
	if _, err := s.store.DeskAppend(ctx, id, m); err != nil {
		return DeskThread{}, err
	}
	if th.Ticket.ContactEmail != nil && s.mailer != nil {
		_ = s.mailer.Send(context.WithoutCancel(ctx), s.replyLetter(th.Ticket, m))
	}
	return s.store.DeskThread(ctx, id)
}

// Note adds an internal note, which the member never sees.
func (s *Service) Note(ctx context.Context, p auth.Principal, id string, in ReplyRequest) (DeskThread, error) {
	if err := p.MayOperate(); err != nil {
		return DeskThread{}, err
	}
	name := p.Email
	if n, _, err := s.store.UserName(ctx, p.UserID); err == nil && n != "" {
		name = n
	}
	m := Message{ID: newID(), Content: in.Content, Author: AuthorNote, AuthorName: name, CreatedAt: ts.Of(s.now())}
	if _, err := s.store.DeskAppend(ctx, id, m); err != nil {
		return DeskThread{}, err
	}
	return s.store.DeskThread(ctx, id)
}

// Close closes a ticket; closing a closed one changes nothing. A noted
// report is not a thread to close (TICKET_NOTED).
func (s *Service) Close(ctx context.Context, p auth.Principal, id string) (DeskTicket, error) {
	now := s.now()
	return s.setClosed(ctx, p, id, &now)
}

// Reopen opens a closed ticket again; an open one is unchanged.
func (s *Service) Reopen(ctx context.Context, p auth.Principal, id string) (DeskTicket, error) {
	return s.setClosed(ctx, p, id, nil)
}

func (s *Service) setClosed(ctx context.Context, p auth.Principal, id string, at *time.Time) (DeskTicket, error) {
	if err := p.MayOperate(); err != nil {
		return DeskTicket{}, err
	}
	th, err := s.store.DeskThread(ctx, id)
	if err != nil {
		return DeskTicket{}, err
	}
	if th.Ticket.Status == StatusNoted {
		return DeskTicket{}, ErrNoted
	}
	return s.store.SetClosed(ctx, id, at)
}

// DeskName is how a desk reply is signed to the member.
const DeskName = "Studio support"

// replyLetter carries a desk reply to the ticket's contact address.
func (s *Service) replyLetter(t DeskTicket, m Message) mail.Message {
	user := ""
	if t.UserID != nil {
		user = *t.UserID
	}
	text := fmt.Sprintf("Hello,\n\nThe studio's help desk answered your ticket \"%s\":\n\n%s\n\n", t.Summary, m.Content)
	if t.Source == "app" {
		text += "Read the whole thread, or answer it, in the studio: " + s.public + "/\n"
	} else {
		text += "Answer this letter's ticket in the studio, or write to us again.\n"
	}
	return mail.Message{UserID: user, To: *t.ContactEmail, Template: TemplateReply, Subject: "Re: " + t.Summary, Text: text}
}
