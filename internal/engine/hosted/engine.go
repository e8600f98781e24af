package hosted

import (
	"maps"
	"slices"
	"time"

	"studio/internal/engine"
	"studio/internal/tool"
)

// Engine is what a hosted provider's engine is made of: its client, its
// tool -> model table (configuration: Option WithModels replaces entries)
// and its name in the tool registry. fal's and FASHN's engines embed it
// and add their Run.
type Engine struct {
	Client *Client
	Models map[string]string
	name   string
}

// Option configures an Engine.
type Option func(*Engine)

// WithModels replaces entries of the tool -> model table.
func WithModels(m map[string]string) Option {
	return func(e *Engine) { maps.Copy(e.Models, m) }
}

// WithPolling sets the first status poll delay and the largest one the backoff grows to.
func WithPolling(first, most time.Duration) Option {
	return func(e *Engine) { e.Client.PollMin, e.Client.PollMax = first, max(first, most) }
}

// WithBackoff replaces the submit's backoff (engine.DefaultBackoff).
func WithBackoff(b engine.Backoff) Option {
	return func(e *Engine) { e.Client.Backoff = b }
}

// NewEngine is the engine named name (tool.Fal, tool.Fashn) on c with a
// copy of models, opts applied.
func NewEngine(name string, c *Client, models map[string]string, opts ...Option) Engine {
	e := Engine{Client: c, Models: maps.Clone(models), name: name}
	for _, o := range opts {
		o(&e)
	}
	return e
}

// Name is the engine's name in the tool registry.
func (e *Engine) Name() string { return e.name }

// Tools lists the tools the registry says the engine serves that have a
// model in its table, sorted.
func (e *Engine) Tools() []string {
	return slices.DeleteFunc(tool.ServedBy(e.name), func(name string) bool { return e.Models[name] == "" })
}

// Can reports whether the engine serves the tool and it has a model in
// the table.
func (e *Engine) Can(name string) bool {
	return tool.Serves(e.name, name) && e.Models[name] != ""
}

// Upstream is the provider in the words of a failed develop.
func (e *Engine) Upstream() engine.Upstream { return e.Client.Upstream }
