package httpapi

import (
	"net/http"

	"studio/internal/auth"
	"studio/internal/errs"
	"studio/internal/judge"
	"studio/internal/notify"
)

// NotificationsQuery is the query of GET /api/notifications.
type NotificationsQuery struct {
	Since  *int64  `query:"since" minimum:"0" format:"int64" description:"Backfill: the notifications raised after this eventSeq, oldest first. Not combined with before."`
	Before *string `query:"before" refuse:"BAD_CURSOR" description:"A nextCursor of an earlier answer: the next older page."`
	Limit  int     `query:"limit" minimum:"1" maximum:"200" default:"50"`
}

// errBadNotifySince and errBadNotifyLimit refuse a bad query of the notifications list.
var (
	errBadNotifySince = errs.Msg(errs.BadSince, "since must be a whole number of at least 0, and not combined with before.")
	errBadNotifyLimit = errs.Msg(errs.BadLimit, "limit must be a whole number from 1 to 200.")
)

func (s *Server) listNotifications(w http.ResponseWriter, r *http.Request) error {
	q := queryOf[NotificationsQuery](r)
	nq := notify.Query{Limit: q.Limit}
	if q.Since != nil {
		if q.Before != nil {
			return errBadNotifySince
		}
		nq.Since, nq.Backfill = *q.Since, true
	}
	if q.Before != nil {
		n, err := notify.ParseCursor(*q.Before)
		if err != nil {
			return err
		}
		nq.Before = n
	}
	page, err := s.svc.Notes.List(r.Context(), auth.From(r.Context()), nq)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, page)
}

func (s *Server) readNotifications(w http.ResponseWriter, r *http.Request) error {
	in, err := decode[notify.ReadRequest](w, r)
	if err != nil {
		return err
	}
	m, err := s.svc.Notes.Read(r.Context(), auth.From(r.Context()), in)
	if err != nil {
		return err
	}
	return encode(w, http.StatusOK, m)
}

// notificationsRoutes are the routes of Notifications (SPEC §4.14, §6, DECISIONS §1b and §8).
func (s *Server) notificationsRoutes() []Route {
	return []Route{
		{Method: "GET", Path: "/api/notifications", Class: KeyOrSession, Tag: "notifications", Summary: "The caller's notifications, newest first, or a backfill since an eventSeq",
			Query: NotificationsQuery{}, Out: []Out{{Status: 200, Body: notify.Page{}}},
			Errors: []*errs.Error{errBadNotifySince, notify.ErrBadCursor, errBadNotifyLimit}, Handler: s.listNotifications},
		{Method: "POST", Path: "/api/notifications/read", Class: KeyOrSession, Tag: "notifications", Summary: "Mark notifications read; idempotent, nothing deleted",
			In: notify.ReadRequest{}, Out: []Out{{Status: 200, Body: notify.Marked{}}}, Handler: s.readNotifications},
		{Method: "GET", Path: "/api/notifications/{id}/opinion", Class: KeyOrSession, Tag: "notifications", Summary: "The facts behind a develop.opinion notification, from stored rows", Heavy: true,
			Out: []Out{{Status: 200, Body: judge.Opinion{}}}, Errors: []*errs.Error{errs.NotFound}, Handler: s.opinion},
	}
}
