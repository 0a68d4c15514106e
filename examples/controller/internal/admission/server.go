package admission

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/vcjob/vcjob/examples/controller/pkg/metrics"
)

// Server is the webhook server: HTTPS on Addr with the certificate and
// key in CertFile and KeyFile, reread when either file changes (a
// cert-manager renewal needs no restart).
type Server struct {
	Addr, CertFile, KeyFile string
	Metrics                 *metrics.Metrics
}

// Mux routes the three webhook paths. The path is cleaned first: envtest
// (and some hand-written configurations) join host and path with a
// doubled slash.
func Mux(m *metrics.Metrics) http.Handler {
	routes := map[string]http.Handler{
		MutateJobsPath:       Handler(MutateJobsPath, MutateJob, m),
		ValidateJobsPath:     Handler(ValidateJobsPath, ValidateJob, m),
		ValidateCronJobsPath: Handler(ValidateCronJobsPath, ValidateCronJob, m),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := routes[path.Clean("/"+r.URL.Path)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Run serves until ctx is done, then shuts down, letting reviews under
// way finish. It and the handlers log with ctx's logger, named
// "admission".
func (s *Server) Run(ctx context.Context) error {
	logger := klog.LoggerWithName(klog.FromContext(ctx), "admission")
	certs := &certFiles{cert: s.CertFile, key: s.KeyFile}
	if _, err := certs.get(nil); err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	srv := &http.Server{
		Handler:           Mux(s.Metrics),
		ReadHeaderTimeout: 10 * time.Second,
		TLSConfig:         &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.get},
		// The reviews' contexts carry the logger, not ctx's cancellation.
		BaseContext: func(net.Listener) context.Context { return klog.NewContext(context.Background(), logger) },
	}
	logger.Info("Serving admission webhooks", "addr", ln.Addr().String())
	stop := context.AfterFunc(ctx, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	})
	defer stop()
	if err := srv.ServeTLS(ln, "", ""); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("webhook: %w", err)
	}
	return nil
}

// certFiles loads a key pair and loads it again when a file's
// modification time changes.
type certFiles struct {
	cert, key string

	mu      sync.Mutex
	loaded  *tls.Certificate
	modTime [2]time.Time
}

func (c *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	var mt [2]time.Time
	for i, f := range []string{c.cert, c.key} {
		st, err := os.Stat(f)
		if err != nil {
			return nil, err
		}
		mt[i] = st.ModTime()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded != nil && mt == c.modTime {
		return c.loaded, nil
	}
	pair, err := tls.LoadX509KeyPair(c.cert, c.key)
	if err != nil {
		if c.loaded != nil {
			return c.loaded, nil // half-written renewal: keep the old pair
		}
		return nil, err
	}
	c.loaded, c.modTime = &pair, mt
	return c.loaded, nil
}
