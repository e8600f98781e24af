package console

import (
	"net/http"
	"net/url"
	"strings"

	"studio/internal/asset"
	"studio/internal/httpapi"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/share"
)

// The library: uploads, the grid by kind and collection, collections,
// search, and one asset's page.

// libraryData is what the library page shows.
type libraryData struct {
	Folders []asset.Folder
	Folder  string // the collection shown: "" every asset, "root" the unfiled, else an id
	Current *asset.Folder
	Kind    string // the kind shown ("" every kind)
	Query   string // the search asked
	Assets  []asset.Asset
	Results httpapi.SearchBody
	Kinds   []asset.Kind // the kinds an upload may name
	Filed   []asset.Kind // the kinds an asset may be filed as
}

// library is GET /library: ?folder= a collection (root: the unfiled),
// ?kind= one kind, ?q= the search route's answer over the house.
func (c *Console) library(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := libraryData{Folder: q.Get("folder"), Kind: q.Get("kind"), Query: strings.TrimSpace(q.Get("q")),
		Kinds: asset.UploadKinds, Filed: asset.FileKinds}
	var fs httpapi.FoldersBody
	var as httpapi.AssetsBody
	reads := []read{{path: "/api/toolkit/folders", out: &fs}}
	if d.Query != "" {
		reads = append(reads, read{path: "/api/toolkit/search?q=" + url.QueryEscape(d.Query), out: &d.Results})
	} else {
		path := "/api/toolkit/assets"
		if d.Folder != "" {
			path += "?folderId=" + url.QueryEscape(d.Folder)
		}
		reads = append(reads, read{path: path, out: &as})
	}
	me, err := c.visitor(w, r, reads...)
	if err != nil {
		return err
	}
	d.Folders = fs.Folders
	for i := range d.Folders {
		if d.Folders[i].ID == d.Folder {
			d.Current = &d.Folders[i]
		}
	}
	for _, a := range as.Assets {
		if d.Kind == "" || (a.Kind != nil && string(*a.Kind) == d.Kind) {
			d.Assets = append(d.Assets, a)
		}
	}
	return c.render(w, http.StatusOK, "library", view{Title: "Library", Section: "library", Me: me, Data: d, Script: "library.js"})
}

// assetData is what an asset's page shows: the asset, the develop that
// made it with its verdict, and the reviewers' marks on it.
type assetData struct {
	Asset   asset.Asset
	Folders []asset.Folder
	Made    *job.Job
	Verdict *judge.Verdict
	Marks   []share.Mark
	Filed   []asset.Kind
	Fits    []asset.Fit
	Wearers []asset.Wearer
}

// assetPage is GET /library/{id}. The API has no read of one asset's
// fields, so the page finds it in the library's list; the develop that
// made it is the job whose result it is.
func (c *Console) assetPage(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	d := assetData{Filed: asset.FileKinds, Fits: asset.Fits, Wearers: asset.Wearers}
	var as httpapi.AssetsBody
	var fs httpapi.FoldersBody
	var ms httpapi.MarksBody
	me, err := c.visitor(w, r, read{path: "/api/toolkit/assets", out: &as}, read{path: "/api/toolkit/folders", out: &fs},
		read{path: "/api/toolkit/share-marks?assetIds=" + url.QueryEscape(id), out: &ms})
	if err != nil {
		return err
	}
	found := false
	for _, a := range as.Assets {
		if a.ID == id {
			d.Asset, found = a, true
		}
	}
	if !found {
		return &apiError{Status: http.StatusNotFound, Code: "NOT_FOUND", Message: "There is no such asset in this house."}
	}
	d.Folders, d.Marks = fs.Folders, ms.Marks
	if d.Asset.Tool != nil {
		var js httpapi.JobsBody
		if err := c.get(w, r, "/api/toolkit/jobs?since=0", &js); err != nil {
			return err
		}
		for i := range js.Jobs {
			if js.Jobs[i].ResultAssetID == id {
				d.Made = &js.Jobs[i]
			}
		}
	}
	if d.Made != nil {
		var vs httpapi.VerdictsBody
		if err := c.get(w, r, "/api/toolkit/judge/verdicts?jobIds="+url.QueryEscape(d.Made.ID), &vs); err != nil {
			return err
		}
		if len(vs.Verdicts) > 0 {
			d.Verdict = &vs.Verdicts[0]
		}
	}
	return c.render(w, http.StatusOK, "asset", view{Title: d.Asset.Name, Section: "library", Me: me, Data: d, Script: "library.js"})
}
