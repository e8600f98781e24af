package engine

// Follower is an engine that follows only a declared vocabulary of written
// directions (DECISIONS §11, "Reruns the engine can follow"): the local
// engine, which renders the same frame from the same inputs and so can act
// only on what it can compute (warmer, darker, a tighter crop...). An
// engine that is not a Follower passes a direction to its model as words.
type Follower interface {
	// Follows reports whether the engine follows direction for tool, and
	// the directions it follows (for the refusal's legal).
	Follows(tool, direction string) (legal []string, ok bool)
}

// Follows asks the engine within e that serves tool whether it follows
// direction: true for an engine that takes any words, and for an empty
// direction.
func Follows(e Engine, tool, direction string) ([]string, bool) {
	if f, ok := Serving(e, tool).(Follower); ok && direction != "" {
		return f.Follows(tool, direction)
	}
	return nil, true
}
