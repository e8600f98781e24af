package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"studio/internal/errs"
)

// A route's query string is decoded once, before its handler runs, into the
// struct its Query documents, read from the same tags the OpenAPI document
// shows, so that a documented limit, enum or default is the enforced one:
//
//	query:"name"       the parameter (fields without it are not read)
//	required:"true"    absent (or empty) is refused
//	minimum, maximum   bounds of an integer
//	enum:"a,b"         the legal values of a string
//	maxLength:"n"      the longest string, in characters
//	default:"v"        the value when absent
//	refuse:"CODE"      the code a bad value answers; BAD_<NAME> by default
//
// Fields are strings, integers or pointers to them (nil when absent); a
// parameter given empty is given (an empty string, a refused integer). A
// bad value is refused with the code, which must be one the route documents
// (NewServer checks this), and a message drawn from the tags. A value given
// twice, with a control character or that is not UTF-8 is bad too. Unknown
// parameters are ignored. The handler reads the result with queryOf.

// queryPlan is how to decode one query struct type.
type queryPlan struct {
	typ    reflect.Type
	fields []queryField
}

type queryField struct {
	index    int
	name     string
	kind     reflect.Kind // string, or an integer kind
	ptr      bool
	required bool
	min, max *int64
	enum     []string
	maxLen   int
	def      string
	refusal  *errs.Error
}

// planQuery reads the tags of a route's query struct and resolves each
// field's refusal among the route's documented errors. It panics on a
// struct it cannot decode: a programming error every test run meets.
func planQuery(rt Route) *queryPlan {
	t := reflect.TypeOf(rt.Query)
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("%s: Query must be a struct, not %s", rt.Pattern(), t))
	}
	documented := rt.DocumentedErrors()
	plan := &queryPlan{typ: t}
	for i := range t.NumField() {
		sf := t.Field(i)
		name := sf.Tag.Get("query")
		if name == "" || name == "-" {
			continue
		}
		f := queryField{index: i, name: name, required: sf.Tag.Get("required") == "true",
			def: sf.Tag.Get("default")}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.ptr, ft = true, ft.Elem()
		}
		f.kind = ft.Kind()
		switch f.kind {
		case reflect.String:
		case reflect.Int, reflect.Int32, reflect.Int64:
			f.min, f.max = tagInt(rt, sf, "minimum"), tagInt(rt, sf, "maximum")
		default:
			panic(fmt.Sprintf("%s: query field %s is a %s; strings and integers only", rt.Pattern(), sf.Name, ft))
		}
		if e := sf.Tag.Get("enum"); e != "" {
			f.enum = strings.Split(e, ",")
		}
		if n := tagInt(rt, sf, "maxLength"); n != nil {
			f.maxLen = int(*n)
		}
		code := sf.Tag.Get("refuse")
		if code == "" {
			code = "BAD_" + upperSnake(name)
		}
		for _, e := range documented {
			if e.Code == code {
				f.refusal = e
			}
		}
		if f.refusal == nil {
			panic(fmt.Sprintf("%s: query parameter %s is refused with %s, which the route does not document", rt.Pattern(), name, code))
		}
		plan.fields = append(plan.fields, f)
	}
	return plan
}

func tagInt(rt Route, sf reflect.StructField, tag string) *int64 {
	v := sf.Tag.Get(tag)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("%s: query field %s: %s:%q is not an integer", rt.Pattern(), sf.Name, tag, v))
	}
	return &n
}

// upperSnake turns folderId into FOLDER_ID.
func upperSnake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// decode reads the query of r into a new value of the plan's type.
func (p *queryPlan) decode(r *http.Request) (any, error) {
	q := r.URL.Query()
	v := reflect.New(p.typ)
	for _, f := range p.fields {
		vals, given := q[f.name]
		var raw string
		switch {
		case !given && f.required:
			return nil, errs.Msg(f.refusal, f.name+" is required.")
		case !given && f.def == "":
			continue
		case !given:
			raw = f.def
		case len(vals) > 1:
			return nil, errs.Msg(f.refusal, f.name+" must be given once.")
		case vals[0] == "" && f.required:
			return nil, errs.Msg(f.refusal, f.name+" is required.")
		default:
			raw = vals[0]
		}
		if !cleanText(raw) {
			return nil, errs.Msg(f.refusal, f.name+" must be text without control characters.")
		}
		dst := v.Elem().Field(f.index)
		if f.ptr {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		if err := f.set(dst, raw); err != nil {
			return nil, err
		}
	}
	return v.Interface(), nil
}

func (f queryField) set(dst reflect.Value, raw string) error {
	if f.kind == reflect.String {
		if f.enum != nil && !slices.Contains(f.enum, raw) {
			return errs.Msg(f.refusal, f.name+" must be "+orList(f.enum)+".")
		}
		if f.maxLen > 0 && len([]rune(raw)) > f.maxLen {
			return errs.Msg(f.refusal, fmt.Sprintf("%s must be at most %d characters.", f.name, f.maxLen))
		}
		dst.SetString(raw)
		return nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || (f.min != nil && n < *f.min) || (f.max != nil && n > *f.max) || dst.OverflowInt(n) {
		return errs.Msg(f.refusal, f.wholeNumber())
	}
	dst.SetInt(n)
	return nil
}

func (f queryField) wholeNumber() string {
	switch {
	case f.min != nil && f.max != nil:
		return fmt.Sprintf("%s must be a whole number from %d to %d.", f.name, *f.min, *f.max)
	case f.min != nil:
		return fmt.Sprintf("%s must be a whole number of at least %d.", f.name, *f.min)
	case f.max != nil:
		return fmt.Sprintf("%s must be a whole number of at most %d.", f.name, *f.max)
	}
	return f.name + " must be a whole number."
}

// orList renders [a b c] as "a, b or c".
func orList(vs []string) string {
	if len(vs) == 1 {
		return vs[0]
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

type queryKey struct{}

// queryOf returns the decoded query of the route serving r. T must be the
// type of the route's Query.
func queryOf[T any](r *http.Request) T {
	return *r.Context().Value(queryKey{}).(*T)
}

func withQuery(ctx context.Context, q any) context.Context {
	return context.WithValue(ctx, queryKey{}, q)
}
