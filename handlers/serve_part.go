package handlers

import (
	"fmt"
	"strings"

	"github.com/styrmin/styrmin/handlers/action"
)

// Part is what a server serves of the permission table: everything, the web
// app and REST API only, or the action API only. The chart runs its web pods
// and its action API's pods each with one part, so that each answers only
// what it is there for.
type Part string

// The parts a server can serve (Deps.Serves; `styrmin serve --serve`).
const (
	// ServeAll serves every route: the pages, the REST API and the action API.
	ServeAll Part = "all"
	// ServeWeb serves the pages and the REST API; the action API's paths answer 404.
	ServeWeb Part = "web"
	// ServeActions serves the action API; the pages and the REST API answer 404.
	ServeActions Part = "actions"
)

// ParsePart reads a Part by its name; "" is ServeAll.
func ParsePart(name string) (Part, error) {
	switch p := Part(strings.TrimSpace(name)); p {
	case "":
		return ServeAll, nil
	case ServeAll, ServeWeb, ServeActions:
		return p, nil
	default:
		return "", fmt.Errorf("unknown part %q: give %s, %s or %s", name, ServeAll, ServeWeb, ServeActions)
	}
}

// WebServed reports whether p serves the pages and the REST API (and so
// wants what they read kept current, such as deployments' health).
func (p Part) WebServed() bool { return p != ServeActions }

// serves reports whether p serves r; the health checks are everyone's.
func (p Part) serves(r route) bool {
	if r.path == "/healthz" || r.path == "/readyz" {
		return true
	}
	inActionAPI := strings.HasPrefix(r.path, action.Prefix)
	switch p {
	case ServeWeb:
		return !inActionAPI
	case ServeActions:
		return inActionAPI
	default:
		return true
	}
}
