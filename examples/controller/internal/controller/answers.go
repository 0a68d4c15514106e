package controller

import (
	"context"
	"io"
	"net/http"
)

// A pod create is answered with the created pod, a few kilobytes the
// controller never reads (the informer brings the pod), and client-go
// reads every answer into a new buffer before it looks at the status
// code. A request made with WithoutAnswer has a successful answer's body
// read to its end here, into a reused buffer, and client-go sees an empty
// body. Errors keep their bodies: they are what client-go turns into a
// status error (AlreadyExists, Conflict).

type withoutAnswerKey struct{}

// WithoutAnswer marks the request made with ctx as one whose successful
// answer nobody reads; DiscardAnswers drops its body.
func WithoutAnswer(ctx context.Context) context.Context {
	return context.WithValue(ctx, withoutAnswerKey{}, true)
}

// DiscardAnswers is a rest.Config WrapTransport that drops the body of a
// 2xx answer to a request made with WithoutAnswer.
func DiscardAnswers(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 || req.Context().Value(withoutAnswerKey{}) == nil {
			return resp, err
		}
		// io.Discard reads into buffers of its own, reused.
		_, err = io.Copy(io.Discard, resp.Body)
		if cerr := resp.Body.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err // as if the answer had been lost: the step is retried, and a create then meets AlreadyExists
		}
		resp.Body, resp.ContentLength = http.NoBody, 0
		return resp, nil
	})
}
