package controller

import (
	"net/http"
	"strconv"
	"strings"
)

// MetricAPIRequests counts the HTTP requests the controller sends to the
// API server, by verb, resource and status code.
const MetricAPIRequests = "vcjob_controller_api_requests_total"

// CountRequests returns a rest.Config WrapTransport that counts every
// request to the API server in MetricAPIRequests, by the verb the API
// server would audit it under (get, list, watch, create, update, patch,
// delete, deletecollection), the resource (with its subresource:
// "jobs/status") and the response code ("error" when none came back).
func CountRequests(m *Metrics) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			code := "error"
			if err == nil {
				code = strconv.Itoa(resp.StatusCode)
			}
			verb, resource := RequestVerbResource(req)
			m.Inc(MetricAPIRequests, "verb", verb, "resource", resource, "code", code)
			return resp, err
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// RequestVerbResource names a request the way the API server's audit log
// does: the verb, and the resource with its subresource.
func RequestVerbResource(req *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	// /api/v1/... or /apis/<group>/<version>/...
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return strings.ToLower(req.Method), "other"
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		parts = parts[2:] // namespaced: <resource>[/<name>[/<subresource>]]
	}
	var name string
	switch len(parts) {
	case 0:
		return strings.ToLower(req.Method), "other"
	case 1:
		resource = parts[0]
	case 2:
		resource, name = parts[0], parts[1]
	default:
		resource, name = parts[0]+"/"+parts[2], parts[1]
	}
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true" || req.URL.Query().Get("watch") == "1":
			verb = "watch"
		case name == "":
			verb = "list"
		default:
			verb = "get"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
	case http.MethodDelete:
		verb = "delete"
		if name == "" {
			verb = "deletecollection"
		}
	default:
		verb = strings.ToLower(req.Method)
	}
	return verb, resource
}
