package httpapi

import (
	"strings"

	"studio/internal/httpapi/openapi"
)

// extensionNote introduces an operation beyond the spec.
const extensionNote = "An extension: this operation is beyond the API's specification (marked x-extension)."

// buildOpenAPI renders the OpenAPI document of a routes table
// (internal/httpapi/openapi does the rendering): each route's credential
// class becomes its security and a note, and its documented errors their
// statuses.
func buildOpenAPI(routes []Route) ([]byte, error) {
	ops := make([]openapi.Operation, len(routes))
	for i, rt := range routes {
		op := openapi.Operation{
			Method: rt.Method, Path: rt.Path, Tag: rt.Tag, Summary: rt.Summary,
			Query: rt.Query, Body: rt.In,
		}
		if mp, ok := rt.In.(Multipart); ok {
			op.Body, op.Form = mp.JSON, mp.Form
		}
		note := ""
		switch rt.Class {
		case KeyOrSession:
			op.Security = []string{openapi.SchemeKey, openapi.SchemeSession}
		case SessionOnly:
			op.Security = []string{openapi.SchemeSession}
			note = "Needs a session cookie; an API key is answered 401."
		case PlatformAdmin:
			op.Security = []string{openapi.SchemeSession}
			note = "Platform admins only: a session whose e-mail is on the service's admin list. A valid API key, even an admin's, is answered 403."
		case SharedSecret:
			note = "Takes no API key or session: the handler checks a shared secret the caller sends in a header."
		case Analyst:
			op.Security = []string{openapi.SchemeAnalyst}
			note = "Internal: the analyst token (`Authorization: Bearer <ANALYST_TOKEN>`), compared in constant time. " +
				"A house key or a session is not accepted; while ANALYST_TOKEN is unset every call is answered 401."
		case AnalystAction:
			op.Security = []string{openapi.SchemeAnalystAction}
			note = "Internal: the analyst action token (`Authorization: Bearer <ANALYST_ACTION_TOKEN>`), separate from the read token, " +
				"compared in constant time. The read token, a house key or a session is not accepted; while ANALYST_ACTION_TOKEN is unset every call is answered 401."
		case Reviewer:
			note = "Takes no API key or session: the share link's 256-bit token in the path is the authority. " +
				"An expired, revoked or unknown token answers the one 404."
		}
		op.Description = strings.TrimSpace(rt.Description + "\n\n" + note)
		if rt.Extension {
			op.Extension = true
			op.Description = strings.TrimSpace(op.Description + " " + extensionNote)
		}
		for _, out := range rt.Out {
			op.Answers = append(op.Answers, openapi.Answer{Status: out.Status, Body: out.Body, ContentType: out.ContentType})
		}
		for _, e := range rt.DocumentedErrors() {
			op.Errors = append(op.Errors, openapi.Error{Status: Status(e.Kind), Code: e.Code, Message: e.Message})
		}
		ops[i] = op
	}
	return openapi.Build(openapi.Info{SessionCookie: SessionCookie, Tags: tagDescriptions}, ops)
}

// tagDescriptions introduce each group of operations in the document.
var tagDescriptions = map[string]string{
	"meta":          "Liveness, this document and the interactive reference.",
	"auth":          "Accounts and browser sessions: sign-up, sign-in, houses and e-mail verification.",
	"keys":          "Organization API keys for scripts and agents (session only).",
	"posts":         "The sample resource: notes kept by a house.",
	"assets":        "The house library: images of garments, models, backgrounds and marks.",
	"collections":   "Folders of the library, flat on the wire.",
	"billing":       "Tokens: the balance, open holds, prices, and platform grants.",
	"admin":         "Platform administration (sessions on the allowlist).",
	"analyst":       "The internal analyst: aggregates without identities (counts, rates, distributions over a window of hours) and actions on the applicant list, behind bearer tokens of their own.",
	"search":        "One field over the house: pieces, collections, looks and workflows.",
	"onboarding":    "The first-steps checklist of a house.",
	"pipelines":     "Saved plans of tool steps, priced before running, run over the house's assets.",
	"jobs":          "Develops: frames commissioned from tools, their runs and the event stream.",
	"mcp":           "The Model Context Protocol endpoint for AI agents.",
	"packs":         "Batch downloads of frames as zip archives.",
	"notifications": "What the house was told: packs ready, shares answered, the judge's opinion of a settled run.",
	"judge":         "Verdicts on every developed frame and the house's answers, redraws, takes and standing notes.",
	"lookbook":      "Looks, their lock and variation frames, presets, factory and templates.",
	"postures":      "The posture library and the house's posture preferences.",
	"webhooks":      "Outbound webhooks: endpoints that hear develop.done and verdict.written, Standard Webhooks signed, retried for a day and a half; owner or admin.",
	"share":         "Share links: outside reviewers mark frames keep or pass on /s; the director reads their marks and a collection's coverage.",
	"chat": "The studio assistant. The draft is the look being composed, held by the client: name, modelAssetId, items " +
		"[{assetId, role, label, hero}] (the hero first), background, aesthetic, quality, output. A mutation is one typed change " +
		"{op, ...}: rename {name}, set-model {assetId; none clears}, add-item {assetId, role, label?, hero?, position?}, " +
		"remove-item {assetId}, set-hero {assetId, position?}, set-background {background; none clears}, set-aesthetic " +
		"{aesthetic; empty clears}, set-quality {quality}, set-output {output}. Every applied mutation comes with its inverse: " +
		"undo posts the inverse to /api/chat/apply, redo the mutation. The assistant chooses mutations as tool calls; each " +
		"applied one is also pushed on the job socket as {type: chat.applied, turnId, sessionId, index, count, mutation, inverse}.",
	"memory":  "What the studio remembers: statements shared by the house or kept by one user, corrected by successors, retired with their history kept.",
	"email":   "The service's letters: drip letters sent once per key, and the e-mail provider's signed delivery events.",
	"support": "The help desk: tickets and their threads, screenshots behind expiring signed links, escalations from the support bridge.",
	"models":  "The casting board: the house's own models and the catalogue of the service's faces.",
	"account": "You and the house's account: plan, tokens and spend, invoices, billing, your picture.",
	"seats":   "The house's people: offering seats, roles, removals and handing the house over.",
	"invites": "The door in: invitations, invite codes, the applicant list and link previews.",
	"me":      "Your own data: what the service keeps about you, exported or erased.",
	"brand":   "The house's identity: its brand profile (visual DNA, read from photographs), whose clause rides every develop when enabled, and its marks (logo renditions), at most two riding with each frame.",
	"access":  "What a user may open: the toolkits and tools, each open while the house's plan is (a running trial or a paid plan) or granted by an operator, the trial's state, and each tool's curated items.",
	"ai":      "The AI lanes and text tools: one question each (depth, cut-outs, what an item is, where the items are, a face's traits, prompts), paid from the house's tokens, held before the call and refunded on any failure.",
}
