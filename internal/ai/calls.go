package ai

import (
	"context"
	"time"
)

// Call is one metered use of the endpoint, as operators see it (the admin
// ai-costs route): every request of the use summed (a bad answer is asked
// again once), answered or not, under the name of what asked (a lane, the
// upload's classify, a DNA read that failed).
type Call struct {
	ID     string
	UserID string
	Lane   string
	Usage  Usage
	OK     bool // the asker delivered (its hold, if any, was posted)
	At     time.Time
}

// CallLog keeps calls for operators (sqlstore: ai_calls).
type CallLog interface {
	RecordAICall(ctx context.Context, house string, c Call) error
}
