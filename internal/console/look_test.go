package console_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"studio/internal/apptest"
)

// TestEveryPageInBrowser opens every console page of a furnished house
// (and the operators' pages as an operator) in Chromium at a desktop's
// 1280x800 and a phone's 390x844: no page raises a script error, axe-core
// finds no serious violation (at the desktop's width: the phone's page is
// the same document), and no page scrolls sideways on the phone. With
// go test -artifacts, a screenshot of each whole page is kept in the
// test's artefact folder for a person to look at (STUDIO_SCREENSHOTS
// names another folder); without, none is taken, which keeps make test
// quicker.
func TestEveryPageInBrowser(t *testing.T) {
	keepShots := flag.Lookup("test.artifacts").Value.String() == "true"
	a, u, paths := furnished(t, apptest.SQLite(t))
	admin := a.SignUpAs(t, &apptest.User{Name: "Operator", Email: "admin@studio.test", Password: "correct horse battery"})
	type visit struct {
		who  *apptest.User
		path string
	}
	var visits []visit
	for _, p := range append([]string{"/sign-in", "/sign-up"}, paths...) {
		visits = append(visits, visit{u, p})
	}
	for _, p := range []string{"/admin", "/admin/develops", "/admin/failures", "/admin/emails", "/admin/grants", "/admin/support"} {
		visits = append(visits, visit{admin, p})
	}
	for _, vp := range []struct {
		name          string
		width, height int
		mobile        bool
	}{{"desktop", 1280, 800, false}, {"phone", 390, 844, true}} {
		p := openPage(t, a, "pages-"+vp.name, vp.width, vp.height, vp.mobile)
		for i, v := range visits {
			p.b.Call(t, "Network.clearBrowserCookies", nil, nil)
			if !strings.HasPrefix(v.path, "/sign-") {
				signIn(t, p, v.who)
			}
			p.goTo(v.path)
			if vp.mobile {
				p.checkScripts(vp.name + " " + v.path)
			} else {
				p.check(vp.name + " " + v.path)
			}
			if vp.mobile {
				// A phone widens its layout to fit what overflows: the page
				// must lay out in the device's own width.
				var wide struct {
					Scroll  float64
					Culprit string
				}
				p.b.Eval(t, `({scroll: document.documentElement.scrollWidth,
					culprit: [...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > `+fmt.Sprint(vp.width)+` + 1).slice(-1).map(e => e.tagName + "." + e.className).join("")})`, &wide)
				if wide.Scroll > float64(vp.width)+1 {
					t.Errorf("%s is %.0f px wide on a %d px phone (%s)", v.path, wide.Scroll, vp.width, wide.Culprit)
				}
			}
			if !keepShots {
				continue
			}
			name := strings.Trim(strings.NewReplacer("/", "-", "?", "-", "=", "-", "&", "-").Replace(v.path), "-")
			if name == "" {
				name = "home"
			}
			if len(name) > 40 {
				name = name[:40]
			}
			p.b.ScreenshotPage(t, filepath.Join(p.dir, fmt.Sprintf("page-%s-%02d-%s.png", vp.name, i, name)))
		}
	}
}
