package share

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"
	"time"

	"studio/internal/auth"
	"studio/internal/mail"
)

// The two letters of a share link, each built in one function with a plain
// and an HTML part, so each can move to the letter templates as a whole.

// Template names in the e-mail log.
const (
	TemplateLink     = "share-link"
	TemplateFinished = "share-finished"
)

// linkLetter carries the link to the recipient the member named; the
// token in it is the letter's secret (masked in the e-mail log).
func linkLetter(p auth.Principal, l Link, to, token, url string, now time.Time) mail.Message {
	greeting := "Hello,"
	if l.RecipientLabel != nil {
		greeting = "Hello " + *l.RecipientLabel + ","
	}
	var t strings.Builder
	fmt.Fprintf(&t, "%s\n\nYou have %d frames to review. Open the link, mark each frame keep or pass, add a note or draw on it, and press Finish.\n\n", greeting, l.Frames)
	if l.Message != nil {
		fmt.Fprintf(&t, "%s\n\n", *l.Message)
	}
	fmt.Fprintf(&t, "%s\n\nThe link works until %s. It needs no account; keep it to yourself.\n", url, l.ExpiresAt.UTC().Format("2 January 2006"))
	html := render(linkHTML, map[string]any{"Greeting": greeting, "Frames": l.Frames, "Message": l.Message, "URL": url,
		"Until": l.ExpiresAt.UTC().Format("2 January 2006")})
	return mail.Message{UserID: p.UserID, To: to, Template: TemplateLink, Subject: fmt.Sprintf("%d frames to review", l.Frames), Text: t.String(), HTML: html,
		Secrets: []string{token}}
}

var linkHTML = template.Must(template.New("link").Parse(`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>{{.Greeting}}</p>
<p>You have {{.Frames}} frames to review. Open the link, mark each frame keep or pass, add a note or draw on it, and press Finish.</p>
{{with .Message}}<p style="white-space:pre-wrap">{{.}}</p>{{end}}
<p><a href="{{.URL}}">Review the frames</a></p>
<p style="color:#666">The link works until {{.Until}}. It needs no account; keep it to yourself.</p>
</body></html>`))

// finishLetter tells the minting member what the reviewer answered.
func finishLetter(l Link, userID, name, to string, frames []Frame, f Finished, webOrigin string) mail.Message {
	who := "Your reviewer"
	if l.RecipientLabel != nil {
		who = *l.RecipientLabel
	}
	type line struct {
		I                   int
		Name, Verdict, Note string
		Drawings            int
	}
	lines := make([]line, 0, len(frames))
	var t strings.Builder
	fmt.Fprintf(&t, "Hello %s,\n\n%s finished reviewing %d frames: %d kept, %d passed.\n\n", name, who, l.Frames, f.Kept, f.Passed)
	for _, fr := range frames {
		ln := line{I: fr.I + 1, Name: fr.Name, Verdict: "not marked", Drawings: len(fr.Drawings)}
		if fr.Mark != nil {
			ln.Verdict = string(*fr.Mark)
		}
		if fr.MarkNote != nil {
			ln.Note = *fr.MarkNote
		}
		lines = append(lines, ln)
		fmt.Fprintf(&t, "%d. %s: %s", ln.I, ln.Name, ln.Verdict)
		if ln.Drawings > 0 {
			fmt.Fprintf(&t, " (%d drawings)", ln.Drawings)
		}
		if ln.Note != "" {
			fmt.Fprintf(&t, " - %q", ln.Note)
		}
		t.WriteString("\n")
	}
	fmt.Fprintf(&t, "\nThe marks are beside the frames in the studio (%s).\n", webOrigin)
	html := render(finishHTML, map[string]any{"Name": name, "Who": who, "Frames": l.Frames, "Kept": f.Kept, "Passed": f.Passed,
		"Lines": lines, "Origin": webOrigin})
	return mail.Message{UserID: userID, To: to, Template: TemplateFinished,
		Subject: fmt.Sprintf("%s finished: %d kept, %d passed", who, f.Kept, f.Passed), Text: t.String(), HTML: html}
}

var finishHTML = template.Must(template.New("finish").Parse(`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Hello {{.Name}},</p>
<p>{{.Who}} finished reviewing {{.Frames}} frames: <b>{{.Kept}} kept</b>, <b>{{.Passed}} passed</b>.</p>
<ol>{{range .Lines}}<li>{{.Name}}: <b>{{.Verdict}}</b>{{if .Drawings}} ({{.Drawings}} drawings){{end}}{{with .Note}} &mdash; {{.}}{{end}}</li>{{end}}</ol>
<p>The marks are beside the frames in <a href="{{.Origin}}">the studio</a>.</p>
</body></html>`))

// render executes an HTML part; the templates are fixed, so a failure is
// a programming error that leaves the letter plain.
func render(t *template.Template, data any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return ""
	}
	return b.String()
}
