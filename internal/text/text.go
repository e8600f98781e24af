// Package text is the rule for the text a client sends (DECISIONS §10):
// UTF-8 without control characters, NUL and the C0 controls other than tab
// and the line breaks (LF, and CR so that text pasted with CRLF line ends
// passes). PostgreSQL refuses NUL and bytes that are not UTF-8 in text, and
// SQLite would store them; the HTTP layer and the MCP server refuse them
// before a store sees them.
package text

import (
	"encoding/json"
	"reflect"
	"unicode/utf8"
)

// Clean reports whether s is UTF-8 without a refused control character.
func Clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return utf8.ValidString(s)
}

// CleanValue reports whether every string reachable from v (struct fields,
// elements, map keys and values; json.RawMessage decoded) is Clean.
// Unexported fields are not read; []byte is not text.
func CleanValue(v any) bool { return cleanValue(reflect.ValueOf(v)) }

// CleanJSON reports whether every string of a JSON document (values and
// object keys) is Clean. A document that does not decode is left to its
// reader to refuse.
func CleanJSON(raw []byte) bool {
	if len(raw) == 0 {
		return true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	return cleanValue(reflect.ValueOf(v))
}

var typeRawMessage = reflect.TypeFor[json.RawMessage]()

func cleanValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return Clean(v.String())
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || cleanValue(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !cleanValue(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type() == typeRawMessage {
			return CleanJSON(v.Bytes())
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return true
		}
		for i := range v.Len() {
			if !cleanValue(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if !cleanValue(it.Key()) || !cleanValue(it.Value()) {
				return false
			}
		}
	}
	return true
}
