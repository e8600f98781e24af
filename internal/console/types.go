package console

import (
	"studio/internal/asset"
	"studio/internal/job"
	"studio/internal/judge"
	"studio/internal/share"
)

// The API's answers the pages read. Each decodes into the domain's own
// wire type; only the envelopes the API wraps them in are written here.

// runsBody is GET /api/toolkit/develops.
type runsBody struct {
	Runs []job.Run `json:"runs"`
}

// jobsBody is GET /api/toolkit/jobs.
type jobsBody struct {
	Jobs []job.Job `json:"jobs"`
}

// assetsBody is GET /api/toolkit/assets.
type assetsBody struct {
	Assets []asset.Asset `json:"assets"`
}

// foldersBody is GET /api/toolkit/folders.
type foldersBody struct {
	Folders []asset.Folder `json:"folders"`
}

// verdictsBody is GET /api/toolkit/judge/verdicts.
type verdictsBody struct {
	Verdicts []judge.Verdict `json:"verdicts"`
}

// marksBody is GET /api/toolkit/share-marks.
type marksBody struct {
	Marks []share.Mark `json:"marks"`
}

// searchBody is GET /api/toolkit/search.
type searchBody struct {
	Results []struct {
		ID       string  `json:"id"`
		Kind     string  `json:"kind"`
		Title    string  `json:"title"`
		Meta     *string `json:"meta"`
		ThumbURL *string `json:"thumbUrl"`
	} `json:"results"`
}
