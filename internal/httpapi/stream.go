package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// arrayBody is a JSON object whose first field is an array, encoded one
// element at a time while a store reads rows: a long list is never held as
// a slice of values and then marshalled. The encoding goes to memory and is
// sent when the read is over, so the database connection is back in its
// pool before the first byte leaves (a slow client never holds one), and an
// error met while reading is still a clean error answer.
type arrayBody struct {
	buf *bytes.Buffer
	enc *json.Encoder
	n   int
}

// bodyBufs keeps the buffers of list answers between requests; one that
// grew past maxPooledBody is left to the collector.
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBody = 4 << 20

// newArrayBody starts {"field":[.
func newArrayBody(field string) *arrayBody {
	buf := bodyBufs.Get().(*bytes.Buffer)
	buf.Reset()
	buf.WriteString(`{"`)
	buf.WriteString(field)
	buf.WriteString(`":[`)
	return &arrayBody{buf: buf, enc: json.NewEncoder(buf)}
}

// jsonAppender is an element that writes its own JSON, byte for byte what
// encoding/json would (asset.Asset): no reflection per element.
type jsonAppender interface{ AppendJSON([]byte) []byte }

// add encodes one element.
func (b *arrayBody) add(v any) error {
	if b.n > 0 {
		b.buf.WriteByte(',')
	}
	b.n++
	if a, ok := v.(jsonAppender); ok {
		b.buf.Grow(1 << 10) // room for one element, so it is appended in place
		b.buf.Write(a.AppendJSON(b.buf.AvailableBuffer()))
		return nil
	}
	if err := b.enc.Encode(v); err != nil {
		return err
	}
	b.buf.Truncate(b.buf.Len() - 1) // Encode ends with a newline
	return nil
}

// send closes the array, adds the fields that follow it (name, value,
// name, value ...) and writes the answer. The buffer is released: the body
// cannot be used after.
func (b *arrayBody) send(w http.ResponseWriter, status int, fields ...any) error {
	defer b.release()
	b.buf.WriteByte(']')
	for i := 0; i+1 < len(fields); i += 2 {
		b.buf.WriteString(`,"`)
		b.buf.WriteString(fields[i].(string))
		b.buf.WriteString(`":`)
		if err := b.enc.Encode(fields[i+1]); err != nil {
			return err
		}
		b.buf.Truncate(b.buf.Len() - 1)
	}
	b.buf.WriteString("}\n")
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(b.buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.buf.Bytes())
	return nil
}

// release returns the buffer to the pool; send calls it, and so must a
// handler that gives up on the body.
func (b *arrayBody) release() {
	if b.buf == nil {
		return
	}
	if b.buf.Cap() <= maxPooledBody {
		bodyBufs.Put(b.buf)
	}
	b.buf = nil
}
