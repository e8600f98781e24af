package httpapi

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"studio/internal/jsonstr"
)

// lineOutput is a log handler that lets the request line be encoded here
// and written straight to its output (asynclog.Handler).
type lineOutput interface{ Output() io.Writer }

// requestLog writes the one line per request. On a handler that offers its
// output, the line is appended into a pooled buffer field by field, in
// exactly the form slog's JSON handler gives the same record, and written
// in one call: no record, no attributes, no allocation. On any other
// handler (tests' buffers, a discard handler) it goes through slog.
type requestLog struct {
	log *slog.Logger
	out io.Writer // nil: through slog
}

func newRequestLog(log *slog.Logger) requestLog {
	if log == nil {
		log = slog.Default()
	}
	rl := requestLog{log: log}
	if lo, ok := log.Handler().(lineOutput); ok {
		rl.out = lo.Output()
	}
	return rl
}

// line is what the request line says.
type line struct {
	id, method, path, house string
	status                  int
	bytes                   int64
	at                      time.Time // when the answer ended
	duration                time.Duration
}

var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

func (rl requestLog) write(ctx context.Context, l line) {
	if rl.out == nil {
		rl.log.LogAttrs(ctx, slog.LevelInfo, "request",
			slog.String("request_id", l.id),
			slog.String("method", l.method),
			slog.String("path", l.path),
			slog.String("house", l.house),
			slog.Int("status", l.status),
			slog.Int64("bytes", l.bytes),
			slog.Duration("duration", l.duration))
		return
	}
	if !rl.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	bp := lineBufs.Get().(*[]byte)
	b := appendLine((*bp)[:0], l.at, l)
	_, _ = rl.out.Write(b)
	if cap(b) <= 4<<10 { // a line with a huge path is not kept
		*bp = b
		lineBufs.Put(bp)
	}
}

// appendLine appends the request line as slog.JSONHandler writes it.
func appendLine(b []byte, now time.Time, l line) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","request_id":`...)
	b = jsonstr.AppendSlog(b, l.id)
	b = append(b, `,"method":`...)
	b = jsonstr.AppendSlog(b, l.method)
	b = append(b, `,"path":`...)
	b = jsonstr.AppendSlog(b, l.path)
	b = append(b, `,"house":`...)
	b = jsonstr.AppendSlog(b, l.house)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(l.duration), 10)
	return append(b, "}\n"...)
}
