package controller

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestDiscardAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		if r.URL.Query().Get("cut") != "" { // promise more than is sent, then hang up
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(code)
			_, _ = io.WriteString(w, "partial")
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
			return
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, "the created pod")
	}))
	defer srv.Close()
	client := &http.Client{Transport: DiscardAnswers(http.DefaultTransport)}
	get := func(ctx context.Context, query string) (string, int, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/v1/namespaces/ns/pods?"+query, nil)
		resp, err := client.Do(req)
		if err != nil {
			return "", 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), resp.StatusCode, err
	}
	bg := context.Background()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		query    string
		wantBody string
		wantCode int
	}{
		{"unmarked answers are kept", bg, "code=201", "the created pod", 201},
		{"a marked success loses its body", WithoutAnswer(bg), "code=201", "", 201},
		{"a marked 200 too", WithoutAnswer(bg), "code=200", "", 200},
		{"a marked error keeps its body", WithoutAnswer(bg), "code=409", "the created pod", 409},
		{"a marked server error keeps its body", WithoutAnswer(bg), "code=500", "the created pod", 500},
	} {
		body, code, err := get(tc.ctx, tc.query)
		if err != nil || body != tc.wantBody || code != tc.wantCode {
			t.Errorf("%s: %d %q %v, want %d %q", tc.name, code, body, err, tc.wantCode, tc.wantBody)
		}
	}
	if _, _, err := get(WithoutAnswer(bg), "code=201&cut=1"); err == nil {
		t.Error("a marked success whose body breaks off: no error, want the read's error")
	}
}
