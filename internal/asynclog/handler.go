package asynclog

import (
	"io"
	"log/slog"
)

// Handler is slog's JSON handler on an output, which also hands that
// output to a hot path that encodes its own lines in the same format (the
// HTTP server's one line per request): such a line skips slog's record and
// attribute machinery, and still reaches the same output whole.
type Handler struct {
	slog.Handler
	out io.Writer
}

// NewHandler returns slog.NewJSONHandler(out, opts) that also answers
// Output.
func NewHandler(out io.Writer, opts *slog.HandlerOptions) *Handler {
	return &Handler{Handler: slog.NewJSONHandler(out, opts), out: out}
}

// Output is where the handler writes; a line written to it must be whole
// and end in a newline.
func (h *Handler) Output() io.Writer { return h.out }
