package app_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"studio/internal/app"
)

// TestWorkerRoleBuildsNoServer: what `studio worker` builds (a Core and a
// Worker on it) holds no HTTP server, no route table and no console, by
// the types its values are made of, followed through every field,
// pointer, slice, map and channel (an interface's dynamic value and a
// func's captures are not followed: the engines, blobs and mailer are the
// interfaces, and the core's one func wakes the workers). The API,
// which holds them, is the check's control. TestRoles and
// TestRolesAsProcesses (cmd/studio) prove the same by what the roles do.
func TestWorkerRoleBuildsNoServer(t *testing.T) {
	cases := []struct {
		role  any
		serve bool
	}{
		{app.Core{}, false},
		{app.Worker{}, false},
		{app.API{}, true},
	}
	for _, c := range cases {
		typ := reflect.TypeOf(c.role)
		t.Run(typ.Name(), func(t *testing.T) {
			found := serverIn(typ, map[reflect.Type]bool{})
			if c.serve && found == "" {
				t.Fatalf("%s reaches no server type: the check finds nothing", typ)
			}
			if !c.serve && found != "" {
				t.Errorf("%s reaches %s", typ, found)
			}
		})
	}
}

// serverIn returns the first type reachable from typ that serves HTTP:
// anything of httpapi or console, an http.Server or an http.ServeMux.
func serverIn(typ reflect.Type, seen map[reflect.Type]bool) string {
	if seen[typ] {
		return ""
	}
	seen[typ] = true
	pkg := typ.PkgPath()
	if pkg == "studio/internal/httpapi" || strings.HasPrefix(pkg, "studio/internal/console") ||
		typ == reflect.TypeFor[http.Server]() || typ == reflect.TypeFor[http.ServeMux]() {
		return typ.String()
	}
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		return serverIn(typ.Elem(), seen)
	case reflect.Map:
		if s := serverIn(typ.Key(), seen); s != "" {
			return s
		}
		return serverIn(typ.Elem(), seen)
	case reflect.Struct:
		for i := range typ.NumField() {
			if s := serverIn(typ.Field(i).Type, seen); s != "" {
				return typ.String() + "." + typ.Field(i).Name + " -> " + s
			}
		}
	}
	return ""
}
