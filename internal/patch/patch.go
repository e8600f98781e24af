// Package patch tells the three states of a field in a PATCH body apart:
// absent (leave it as it is), null (clear it) and a value (set it). A
// request type declares such fields as Field[T]; encoding/json fills them,
// and the OpenAPI document shows them as T (nullable when the field is
// tagged nullable:"true").
package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// Field is one field of a PATCH body.
type Field[T any] struct {
	Set   bool // the body named the field
	Null  bool // ... as null
	Value T    // the value, when set and not null
}

// Of returns a field set to v.
func Of[T any](v T) Field[T] { return Field[T]{Set: true, Value: v} }

// UnmarshalJSON records that the field was sent, and whether as null.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	var zero T
	f.Set, f.Null, f.Value = true, false, zero
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		f.Null = true
		return nil
	}
	return json.Unmarshal(b, &f.Value)
}

// MarshalJSON writes the value, or null when absent or null.
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if !f.Set || f.Null {
		return []byte("null"), nil
	}
	return json.Marshal(f.Value)
}

// Has reports whether the field carries a value: sent, and not as null.
func (f Field[T]) Has() bool { return f.Set && !f.Null }

// Ptr returns the value, or nil when the field is absent or null.
func (f Field[T]) Ptr() *T {
	if !f.Has() {
		return nil
	}
	v := f.Value
	return &v
}

// JSONSchemaBytes documents the field as its value's type (the OpenAPI
// reflector reads it; the field's own tags add bounds and nullability).
func (Field[T]) JSONSchemaBytes() ([]byte, error) {
	s, err := schemaOf(reflect.TypeFor[T]())
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// InlineJSONSchema keeps the field's schema in place rather than a component.
func (Field[T]) InlineJSONSchema() {}

func schemaOf(t reflect.Type) (map[string]any, error) {
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Slice:
		items, err := schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	}
	return nil, fmt.Errorf("patch: a Field of %s has no schema; use a string, number, boolean or slice", t)
}
