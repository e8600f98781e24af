package httpapi_test

import (
	"slices"
	"testing"

	"studio/internal/apptest"
)

// TestAssetListPaging: the list is whole by default (nextCursor null);
// with a limit it pages newest first, each page's nextCursor starting the
// next, without a gap or a repeat, until a page ends with null. Limits
// outside 1 to 1000 are BAD_LIMIT, a cursor this list did not make is
// BAD_CURSOR, and another house's cursor lists nothing of this house's
// below it but its own.
func TestAssetListPaging(t *testing.T) {
	apptest.ForEachEngine(t, func(t *testing.T, e apptest.Engine) {
		a := apptest.New(t, e)
		owner, other := a.SignUp(t, "pager"), a.SignUp(t, "stranger")
		k, ko := a.Key(t, owner, "member"), a.Key(t, other, "member")
		seedLibrary(t, a, owner.HouseID, 25)
		seedLibrary(t, a, other.HouseID, 3)

		type page struct {
			Assets     []struct{ ID string }
			NextCursor *string
		}
		var whole page
		a.Do(t, "GET", "/api/toolkit/assets", k, nil).JSON(t, &whole)
		if len(whole.Assets) != 25 || whole.NextCursor != nil {
			t.Fatalf("whole list: %d assets, nextCursor %v; want 25 and null", len(whole.Assets), whole.NextCursor)
		}
		var all []string
		for _, x := range whole.Assets {
			all = append(all, x.ID)
		}

		var got []string
		path := "/api/toolkit/assets?limit=10"
		for pages := 0; ; pages++ {
			if pages > 3 {
				t.Fatal("no last page")
			}
			var p page
			res := a.Do(t, "GET", path, k, nil)
			want(t, res, 200, "")
			res.JSON(t, &p)
			for _, x := range p.Assets {
				got = append(got, x.ID)
			}
			if p.NextCursor == nil {
				if len(p.Assets) != 5 {
					t.Errorf("last page: %d assets; want 5", len(p.Assets))
				}
				break
			}
			if len(p.Assets) != 10 {
				t.Errorf("page %d: %d assets; want 10", pages, len(p.Assets))
			}
			path = "/api/toolkit/assets?limit=10&before=" + *p.NextCursor
		}
		if !slices.Equal(got, all) {
			t.Errorf("pages %v; want the whole list %v", got, all)
		}

		var exact page
		a.Do(t, "GET", "/api/toolkit/assets?limit=25", k, nil).JSON(t, &exact)
		if len(exact.Assets) != 25 || exact.NextCursor != nil {
			t.Errorf("a page of exactly the list: %d, nextCursor %v; want 25 and null", len(exact.Assets), exact.NextCursor)
		}
		var first page
		a.Do(t, "GET", "/api/toolkit/assets?limit=1", k, nil).JSON(t, &first)
		var foreign page
		a.Do(t, "GET", "/api/toolkit/assets?before="+*first.NextCursor, ko, nil).JSON(t, &foreign)
		for _, x := range foreign.Assets {
			if slices.Contains(all, x.ID) {
				t.Errorf("another house's list shows %s", x.ID)
			}
		}

		for _, q := range []string{"limit=0", "limit=1001", "limit=ten", "limit=", "limit=-1"} {
			want(t, a.Do(t, "GET", "/api/toolkit/assets?"+q, k, nil), 400, "BAD_LIMIT")
		}
		for _, q := range []string{"before=", "before=nope", "before=YTE6eHl6OmFiYw", "before=bjE6NQ"} { // the last is a notifications cursor
			want(t, a.Do(t, "GET", "/api/toolkit/assets?"+q, k, nil), 400, "BAD_CURSOR")
		}
	})
}
