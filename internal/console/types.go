package console

// The API's answers the pages read, as far as the pages show them. Each
// is a wire shape of SPEC §2 or DECISIONS, decoded as the API sent it.

// runsBody is GET /api/toolkit/develops.
type runsBody struct {
	Runs []run `json:"runs"`
}

// run is a develop run (SPEC §2 Develop run).
type run struct {
	ID     string  `json:"id"`
	Kind   string  `json:"kind"`
	Tool   string  `json:"tool"`
	Title  string  `json:"title"`
	Stage  *string `json:"stage"`
	LookID *string `json:"lookId"`
	State  string  `json:"state"`
	Counts struct {
		Total     int `json:"total"`
		Done      int `json:"done"`
		Failed    int `json:"failed"`
		Cancelled int `json:"cancelled"`
		Active    int `json:"active"`
	} `json:"counts"`
	CreatedAt    string   `json:"createdAt"`
	FinishedAt   *string  `json:"finishedAt"`
	ThumbAssetID *string  `json:"thumbAssetId"`
	JobIDs       []string `json:"jobIds"`
	AgainCost    *int64   `json:"againCost"`
}
