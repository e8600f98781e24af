package httpapi

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
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
	b = appendJSONString(b, l.id)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, l.method)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, l.path)
	b = append(b, `,"house":`...)
	b = appendJSONString(b, l.house)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, l.bytes, 10)
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(l.duration), 10)
	return append(b, "}\n"...)
}

// appendJSONString appends s quoted and escaped as slog's JSON handler
// does: '"', '\\' and control characters escaped, invalid UTF-8 as
// U+FFFD, U+2028 and U+2029 escaped, everything else as is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
