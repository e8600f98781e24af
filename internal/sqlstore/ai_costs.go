package sqlstore

import (
	"context"
	"time"

	"studio/internal/ai"
	"studio/internal/ops"
)

// RecordAICall keeps what one AI lane call cost (ai_calls, operators only).
func (db *DB) RecordAICall(ctx context.Context, house string, c ai.Call) error {
	ok := 0
	if c.OK {
		ok = 1
	}
	_, err := db.writer().Exec(ctx, `INSERT INTO ai_calls (id, organization_id, user_id, lane, model, prompt_tokens,
		completion_tokens, cost_usd, latency_ms, ok, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, house, nullStr(c.UserID), c.Lane, nullStr(c.Usage.Model), c.Usage.PromptTokens, c.Usage.CompletionTokens,
		c.Usage.CostUSD, c.Usage.Latency.Milliseconds(), ok, c.At.UnixMilli())
	return err
}

// statedCosts are the provider costs the service stores, each under the
// name ai-costs lists it by: a DNA read's (the brand-dna workflow), a
// verdict's (the judge, which no hold pays for), each AI lane call's and
// the analyst digest's headlines (analyst; a digest names no house, so it
// keeps its own usage rather than an ai_calls row).
// The develop engines (fal's queue, the local engine) state none.
const statedCosts = `SELECT 'brand-dna' AS tool, cost_usd, created_at FROM brand_dna_reads WHERE created_at >= ?
	UNION ALL SELECT 'judge', cost_usd, created_at FROM verdicts WHERE created_at >= ?
	UNION ALL SELECT lane, cost_usd, created_at FROM ai_calls WHERE created_at >= ?
	UNION ALL SELECT 'analyst', cost_usd, created_at FROM analyst_digests WHERE created_at >= ?`

// statedByTool sums the stated costs since the instant, by tool.
func (db *DB) statedByTool(ctx context.Context, since time.Time) (map[string]float64, error) {
	at := since.UnixMilli()
	rows, err := db.read().Query(ctx, `SELECT c.tool, SUM(c.cost_usd) FROM (`+statedCosts+`) c GROUP BY c.tool`, at, at, at, at)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var tool string
		var usd float64
		if err := rows.Scan(&tool, &usd); err != nil {
			return nil, err
		}
		out[tool] = usd
	}
	return out, rows.Err()
}

// statedByDay sums the stated costs since the instant, by UTC day.
func (db *DB) statedByDay(ctx context.Context, since time.Time) (map[string]float64, error) {
	at := since.UnixMilli()
	rows, err := db.read().Query(ctx, `SELECT c.created_at / 86400000, SUM(c.cost_usd) FROM (`+statedCosts+`) c
		GROUP BY c.created_at / 86400000`, at, at, at, at)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var day int64
		var usd float64
		if err := rows.Scan(&day, &usd); err != nil {
			return nil, err
		}
		out[ops.DayOf(time.UnixMilli(day*msPerDay))] = usd
	}
	return out, rows.Err()
}
