package console_test

import (
	"image/color"
	"testing"
	"time"

	"studio/internal/apptest"
)

// TestLooksInBrowser: compose a look from a model and two garments (each
// with its role), develop its base frame and follow it live, lock it,
// develop two variations, and see the contact sheet with three frames;
// the factory plans looks from the garments and creates them as drafts.
func TestLooksInBrowser(t *testing.T) {
	a := apptest.New(t, apptest.SQLite(t))
	runWorkers(t, a)
	u := person(t, a, "Maison Laine")
	dir := t.TempDir()
	model := uploaded(t, a, u, picture(t, dir, "model.jpg", 300, 450, color.RGBA{200, 170, 150, 255}), "model")
	top := uploaded(t, a, u, picture(t, dir, "top.jpg", 300, 350, color.RGBA{60, 90, 160, 255}), "clothes")
	skirt := uploaded(t, a, u, picture(t, dir, "skirt.jpg", 300, 350, color.RGBA{150, 60, 70, 255}), "clothes")
	p := openPage(t, a, "looks", 1280, 800, false)
	signIn(t, p, u)

	p.goTo("/looks")
	p.check("no looks")
	p.click(`a[href="/looks/new"]`)
	p.waitPath("/looks/new")
	p.typeInto("#look-name", "Linen day look")
	p.click(`input[name="model"][value="` + model + `"]`)
	p.click(`input[name="piece"][value="` + top + `"]`)
	p.click(`input[name="piece"][value="` + skirt + `"]`)
	p.b.Eval(t, `document.querySelector('select[data-role-for="`+skirt+`"]').value = "bottom"`, nil)
	p.check("compose")
	p.shot("compose")
	p.click(`#compose button[type=submit]`)
	p.waitPath("/looks/")
	p.waitText("h1", "Linen day look")
	p.check("the draft")
	p.click(`form[data-api$="/develop-lock"] button`)
	p.until(`!!document.querySelector('button[data-api$="/lock"]')`, 90*time.Second, "the base frame, developed")
	p.check("the base frame")
	p.shot("base")
	p.click(`button[data-api$="/lock"]`)
	p.until(`!!document.querySelector('form[data-api$="/variations"]')`, 20*time.Second, "the locked look")
	p.click(`input[name="keys"][value="back"]`)
	p.click(`input[name="keys"][value="side"]`)
	p.until(`document.querySelectorAll('input[name="keys"]:checked').length === 2`, 5*time.Second, "two keys checked")
	p.click(`form[data-api$="/variations"] button[type=submit]`)

	p.until(`document.querySelectorAll('#grid .tile').length === 3 && document.querySelectorAll('#grid .tile input[name="pick"]').length === 3`, 120*time.Second, "three frames on the contact sheet")
	p.check("the contact sheet")
	p.shot("sheet")

	p.goTo("/looks/factory")
	p.click(`input[name="piece"][value="` + top + `"]`)
	p.click(`input[name="piece"][value="` + skirt + `"]`)
	p.b.Eval(t, `document.getElementById("plan-model").value = "`+model+`"`, nil)
	p.click(`#plan input[name="keys"][value="front"]`)
	p.click(`#plan button[type=submit]`)
	p.until(`!document.getElementById("planned").hidden`, 20*time.Second, "the plan")
	p.check("the plan")
	p.shot("plan")
	p.click(`#run`)
	p.waitPath("/looks")
	p.until(`document.querySelectorAll(".grid .tile").length >= 2`, 20*time.Second, "the factory's looks")
	p.shot("looks")
}
