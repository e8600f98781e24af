// Package jsonstr appends Go strings as JSON string literals, byte for byte
// as encoding/json or log/slog's JSON handler writes them, without
// reflection or allocation: for the hot paths that write JSON by hand (an
// asset's wire form in the library list, the request log line).
package jsonstr

import "unicode/utf8"

// Append appends s quoted as encoding/json does by default: '"' and '\\'
// escaped, '<', '>' and '&' escaped for HTML, control characters as \b \f
// \n \r \t or \u00XX, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped,
// everything else as is.
func Append(b []byte, s string) []byte { return encodingJSON.append(b, s) }

// AppendSlog appends s quoted as log/slog's JSON handler does: as Append,
// except that '<', '>' and '&' are written as they are, and \b and \f as
// \u0008 and \u000c.
func AppendSlog(b []byte, s string) []byte { return slogJSON.append(b, s) }

// A style is one encoder's choices: which ASCII bytes stand as themselves,
// and whether \b and \f have their short escapes.
type style struct {
	safe  [utf8.RuneSelf]bool
	short bool
}

var (
	encodingJSON = newStyle("<>&", true)
	slogJSON     = newStyle("", false)
)

func newStyle(escaped string, short bool) *style {
	s := &style{short: short}
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		s.safe[c] = c != '"' && c != '\\'
	}
	for _, c := range []byte(escaped) {
		s.safe[c] = false
	}
	return s
}

const hex = "0123456789abcdef"

func (st *style) append(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if st.safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '\\' || c == '"':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b' && st.short:
				b = append(b, '\\', 'b')
			case c == '\f' && st.short:
				b = append(b, '\\', 'f')
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
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
