package metrics

import (
	"net/http"
	"strconv"
	"strings"
)

// CountRequests returns a rest.Config WrapTransport that counts every
// request to the API server in APIRequests, by the verb the API server
// audits it under (get, list, watch, create, update, patch, delete,
// deletecollection), the resource (with its subresource: "jobs/status")
// and the response code ("error" when none came back). client-go's own
// rest_client_requests_total has no resource.
func (m *Metrics) CountRequests(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		code := "error"
		if err == nil {
			code = strconv.Itoa(resp.StatusCode)
		}
		verb, resource := RequestVerbResource(req)
		m.APIRequests.WithLabelValues(verb, resource, code).Inc()
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RequestVerbResource names a request the way the API server's audit log
// does: the verb, and the resource with its subresource.
func RequestVerbResource(req *http.Request) (verb, resource string) {
	verb, resource, sub := verbResource(req)
	if sub != "" {
		resource += "/" + sub
	}
	return verb, resource
}

// verbResource is RequestVerbResource with the subresource apart.
func verbResource(req *http.Request) (verb, resource, sub string) {
	var parts [8]string
	n := 0
	for rest := strings.Trim(req.URL.Path, "/"); rest != "" && n < len(parts); {
		parts[n], rest, _ = strings.Cut(rest, "/")
		n++
	}
	p := parts[:n]
	// /api/v1/... or /apis/<group>/<version>/...
	switch {
	case len(p) >= 2 && p[0] == "api":
		p = p[2:]
	case len(p) >= 3 && p[0] == "apis":
		p = p[3:]
	default:
		return strings.ToLower(req.Method), "other", "" // no resource named (rare)
	}
	if len(p) >= 3 && p[0] == "namespaces" {
		p = p[2:] // namespaced: <resource>[/<name>[/<subresource>]]
	}
	var name string
	switch len(p) {
	case 0:
		return strings.ToLower(req.Method), "other", "" // no resource named (rare)
	case 1:
		resource = p[0]
	case 2:
		resource, name = p[0], p[1]
	default:
		resource, name, sub = p[0], p[1], p[2]
	}
	switch req.Method {
	case http.MethodGet:
		switch {
		case isWatch(req.URL.RawQuery):
			verb = "watch"
		case name == "":
			verb = "list"
		default:
			verb = "get"
		}
	case http.MethodDelete:
		verb = "delete"
		if name == "" {
			verb = "deletecollection"
		}
	default:
		verb = methodVerb(req.Method)
	}
	return verb, resource, sub
}

func methodVerb(method string) string {
	switch method {
	case http.MethodGet:
		return "get"
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return strings.ToLower(method)
}

// isWatch reports whether a query asks for a watch (watch=true or 1).
func isWatch(rawQuery string) bool {
	for rest := rawQuery; rest != ""; {
		var kv string
		kv, rest, _ = strings.Cut(rest, "&")
		if v, ok := strings.CutPrefix(kv, "watch="); ok {
			return v == "true" || v == "1"
		}
	}
	return false
}
