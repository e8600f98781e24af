package asset

import (
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends a's wire form: byte for byte what encoding/json
// writes for an Asset (TestAppendJSON and FuzzAppendJSON hold it to that),
// without reflection. The library list encodes thousands of assets per
// answer, and reflection was a fifth of its time. A field added to Asset
// must be added here in the same place; the tests fail until it is.
func (a *Asset) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, a.ID)
	b = append(b, `,"name":`...)
	b = appendString(b, a.Name)
	b = append(b, `,"sku":`...)
	b = appendStringPtr(b, a.SKU)
	b = append(b, `,"kind":`...)
	b = appendStringPtr(b, (*string)(a.Kind))
	b = append(b, `,"url":`...)
	b = appendString(b, a.URL)
	b = append(b, `,"folderId":`...)
	b = appendStringPtr(b, a.FolderID)
	b = append(b, `,"groupId":`...)
	b = appendStringPtr(b, a.GroupID)
	b = append(b, `,"fit":`...)
	b = appendStringPtr(b, (*string)(a.Fit))
	b = append(b, `,"wearer":`...)
	b = appendStringPtr(b, (*string)(a.Wearer))
	b = append(b, `,"fitGuessed":`...)
	b = strconv.AppendBool(b, a.FitGuessed)
	b = append(b, `,"wearerGuessed":`...)
	b = strconv.AppendBool(b, a.WearerGuessed)
	b = append(b, `,"markGuessed":`...)
	b = strconv.AppendBool(b, a.MarkGuessed)
	b = append(b, `,"carriesMark":`...)
	b = strconv.AppendBool(b, a.CarriesMark)
	b = append(b, `,"mime":`...)
	b = appendString(b, a.Mime)
	b = append(b, `,"tool":`...)
	b = appendStringPtr(b, a.Tool)
	b = append(b, `,"width":`...)
	b = strconv.AppendInt(b, int64(a.Width), 10)
	b = append(b, `,"height":`...)
	b = strconv.AppendInt(b, int64(a.Height), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, a.Size, 10)
	b = append(b, `,"createdAt":`...)
	b = a.CreatedAt.AppendJSON(b)
	b = append(b, `,"approved":`...)
	b = strconv.AppendBool(b, a.Approved)
	b = append(b, `,"approvedBy":`...)
	b = appendStringPtr(b, a.ApprovedBy)
	b = append(b, `,"approvedAt":`...)
	if a.ApprovedAt == nil {
		b = append(b, "null"...)
	} else {
		b = a.ApprovedAt.AppendJSON(b)
	}
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does by default: <, > and &
// escaped for HTML, control characters as \b \f \n \r \t or \u00XX,
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
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
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
