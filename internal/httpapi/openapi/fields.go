package openapi

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"unicode"
)

// jsonField is one property of a struct as encoding/json writes it.
type jsonField struct {
	sf       reflect.StructField // as declared in its own struct
	depth    int                 // levels of embedding above it
	tagged   bool                // named by a json tag
	optional bool                // omitempty, omitzero, or reached through an embedded pointer
}

// jsonFields returns the properties encoding/json writes for the struct
// type t, resolving embedded structs as it does: the shallowest field of a
// name wins, a tagged one breaks a tie, and an unbroken tie hides the name.
func jsonFields(t reflect.Type) map[string]jsonField {
	type level struct {
		typ    reflect.Type
		depth  int
		viaPtr bool
	}
	byName := map[string][]jsonField{}
	var current []level
	next := []level{{typ: t}}
	var count, nextCount map[reflect.Type]int
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, current[:0]
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, lv := range current {
			if visited[lv.typ] {
				continue
			}
			visited[lv.typ] = true
			for i := range lv.typ.NumField() {
				sf := lv.typ.Field(i)
				if sf.Anonymous {
					if !sf.IsExported() && indirectType(sf.Type).Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validJSONName(name) {
					name = ""
				}
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					f := jsonField{sf: sf, depth: lv.depth, tagged: name != "",
						optional: lv.viaPtr || jsonTagHas(opts, "omitempty") || jsonTagHas(opts, "omitzero")}
					if name == "" {
						name = sf.Name
					}
					byName[name] = append(byName[name], f)
					if count[lv.typ] > 1 {
						// The struct is embedded twice at one depth: its fields annihilate.
						byName[name] = append(byName[name], f)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{typ: ft, depth: lv.depth + 1, viaPtr: lv.viaPtr || sf.Type.Kind() == reflect.Pointer})
				}
			}
		}
	}

	out := make(map[string]jsonField, len(byName))
	for name, fs := range byName {
		top := slices.MinFunc(fs, func(a, b jsonField) int { return cmp.Compare(a.depth, b.depth) }).depth
		var winner *jsonField
		n, tagged := 0, 0
		for i := range fs {
			if fs[i].depth != top {
				continue
			}
			n++
			if fs[i].tagged {
				tagged++
				winner = &fs[i]
			} else if winner == nil {
				winner = &fs[i]
			}
		}
		if tagged == 1 || (tagged == 0 && n == 1) {
			out[name] = *winner
		}
	}
	return out
}

func sameStructField(a, b reflect.StructField) bool {
	return a.Name == b.Name && a.Type == b.Type && a.Tag == b.Tag && slices.Equal(a.Index, b.Index)
}

func jsonTagHas(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// validJSONName reports whether encoding/json accepts name from a tag.
func validJSONName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func ptrTo[T any](v T) *T { return &v }
