package share

import (
	"maps"
	"slices"
)

// Coverage of a collection (GET /api/toolkit/folders/{id}/coverage), derived
// at read time from the library, the develops and the share marks:
//
//   - The pieces of a collection are its live assets that are not develop
//     results (no tool) and not of kind model, background or mark: the
//     garments, accessories and jewelry it holds, filed or not. Only the
//     collection's own assets count, not those of collections inside it.
//   - A frame is tied to a piece through grouping and the develops: the
//     piece's own image, its group-mates (assets sharing its groupId, other pieces of the
//     collection aside), the result of every develop that took the piece or
//     a frame already tied to it as an input (any role: a try-on with two
//     garments is a frame of both, an upscale of a frame is a frame too),
//     and the result of every develop whose retryOfJobId chain leads to a
//     develop tied to the piece (a retake or redraw stays tied even when
//     its inputs changed). Removed assets are not frames.
//   - "Director-approved" is the asset's approved flag (set by the batch
//     patch). A piece is covered when a frame of it is approved; missing
//     counts the pieces that are not; covered + missing = pieces.
//   - Each piece's state, first that applies: covered (an approved frame);
//     awaiting (a reviewer kept a frame and the director has not approved
//     one yet, or a frame waits in an open link without a verdict);
//     changes-asked (frames were answered and every verdict is pass);
//     not-sent (no frame is in an open link and none was answered).
//   - states lists every piece, newest first, with its counts.

// The states of a piece.
const (
	StateCovered      = "covered"
	StateChangesAsked = "changes-asked"
	StateAwaiting     = "awaiting"
	StateNotSent      = "not-sent"
)

// Piece is a piece of a collection as coverage reads it.
type Piece struct {
	AssetID string
	Name    string
	GroupID string
}

// Lineage is one develop as coverage reads it: what it took, what it
// retook and what it made (empty until done, or when the result was
// removed).
type Lineage struct {
	JobID   string
	RetryOf string
	Inputs  []string
	Result  string
}

// Facts are what the collection's coverage starts from.
type Facts struct {
	Pieces []Piece              // newest first
	Groups map[string][]string  // group id -> the house's live assets in it
	Jobs   []Lineage            // the house's develops
	Frames map[string]FrameFact // by asset id, filled by the store for Candidates
}

// FrameFact is what the marks and the director said about one frame.
type FrameFact struct {
	Approved bool // the director approved the asset
	Pending  bool // it waits in an open link without a verdict there
	Kept     int  // keep verdicts on it, over every link
	Passed   int  // pass verdicts on it, over every link
}

// PieceState is one piece's line of the coverage.
type PieceState struct {
	AssetID  string `json:"assetId"`
	Name     string `json:"name"`
	State    string `json:"state" enum:"covered,changes-asked,awaiting,not-sent"`
	Frames   int    `json:"frames" description:"Live frames tied to the piece."`
	Approved int    `json:"approved" description:"Of those, the director-approved ones."`
	Kept     int    `json:"kept" description:"Keep verdicts on its frames, over every link."`
	Passed   int    `json:"passed" description:"Pass verdicts on its frames, over every link."`
}

// Coverage answers GET /api/toolkit/folders/{id}/coverage.
type Coverage struct {
	Pieces  int          `json:"pieces" description:"The collection's pieces."`
	Covered int          `json:"covered" description:"Pieces with a director-approved frame."`
	Missing int          `json:"missing" description:"Pieces with no director-approved frame."`
	States  []PieceState `json:"states" description:"Every piece with its state, newest first."`
}

// framesOf ties frames to each piece (see the rules above): piece id ->
// the ids of its frames, in no order.
func framesOf(f Facts) map[string][]string {
	isPiece := make(map[string]bool, len(f.Pieces))
	for _, p := range f.Pieces {
		isPiece[p.AssetID] = true
	}
	out := make(map[string][]string, len(f.Pieces))
	for _, p := range f.Pieces {
		tied := map[string]bool{p.AssetID: true}
		if p.GroupID != "" {
			for _, id := range f.Groups[p.GroupID] {
				if !isPiece[id] {
					tied[id] = true
				}
			}
		}
		jobs := map[string]bool{}
		for changed := true; changed; {
			changed = false
			for _, j := range f.Jobs {
				if jobs[j.JobID] || !(jobs[j.RetryOf] && j.RetryOf != "" || slices.ContainsFunc(j.Inputs, func(id string) bool { return tied[id] })) {
					continue
				}
				jobs[j.JobID], changed = true, true
				if j.Result != "" {
					tied[j.Result] = true
				}
			}
		}
		out[p.AssetID] = slices.Sorted(maps.Keys(tied))
	}
	return out
}

// Candidates lists every asset that may be a frame of a piece, so the
// store can fill Facts.Frames for them (removed ones stay out).
func Candidates(f Facts) []string {
	seen := map[string]bool{}
	for _, ids := range framesOf(f) {
		for _, id := range ids {
			seen[id] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Derive computes the coverage from the facts.
func Derive(f Facts) Coverage {
	tied := framesOf(f)
	c := Coverage{Pieces: len(f.Pieces), States: make([]PieceState, 0, len(f.Pieces))}
	for _, p := range f.Pieces {
		ps := PieceState{AssetID: p.AssetID, Name: p.Name}
		pending := false
		for _, id := range tied[p.AssetID] {
			ff, live := f.Frames[id]
			if !live {
				continue
			}
			ps.Frames++
			if ff.Approved {
				ps.Approved++
			}
			ps.Kept += ff.Kept
			ps.Passed += ff.Passed
			pending = pending || ff.Pending
		}
		switch {
		case ps.Approved > 0:
			ps.State = StateCovered
		case ps.Kept > 0 || pending:
			ps.State = StateAwaiting
		case ps.Passed > 0:
			ps.State = StateChangesAsked
		default:
			ps.State = StateNotSent
		}
		if ps.State == StateCovered {
			c.Covered++
		} else {
			c.Missing++
		}
		c.States = append(c.States, ps)
	}
	return c
}
