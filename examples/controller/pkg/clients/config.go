package clients

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ConfigOptions say how to reach the API server.
type ConfigOptions struct {
	// Kubeconfig is a kubeconfig path; empty uses $KUBECONFIG's loading
	// rules, then the in-cluster config.
	Kubeconfig string
	// QPS and Burst are the client-side rate limit.
	QPS   float32
	Burst int
	// Compression asks for gzip-compressed responses (client-go's
	// default); a controller next to its API server does better without.
	Compression bool
	// UserAgent names the controller in the API server's logs.
	UserAgent string
	// WrapTransport, when set, wraps every request's transport (the
	// request counter of package metrics).
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// RESTConfig loads the configuration o names.
func RESTConfig(o ConfigOptions) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = o.Kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	cfg.UserAgent = o.UserAgent
	cfg.DisableCompression = !o.Compression
	if o.WrapTransport != nil {
		cfg.Wrap(o.WrapTransport)
	}
	return cfg, nil
}

// Set is every client the controllers use, on one HTTP client: one
// connection to the API server, over which HTTP/2 carries every watch and
// request.
type Set struct {
	Config  *rest.Config
	Kube    kubernetes.Interface
	Volcano *VolcanoClient
}

// NewSet builds the clients from cfg. Built-in types (pods above all)
// travel as protobuf, client-go's own option for them: smaller, and
// cheaper to encode and decode than JSON. Custom resources have only JSON;
// their clients ask for it.
func NewSet(cfg *rest.Config) (*Set, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	kubeCfg := rest.CopyConfig(cfg)
	kubeCfg.ContentType = runtime.ContentTypeProtobuf
	kubeCfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	kube, err := kubernetes.NewForConfigAndClient(kubeCfg, httpClient)
	if err != nil {
		return nil, err
	}
	volcano, err := NewVolcanoForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return &Set{Config: cfg, Kube: kube, Volcano: volcano}, nil
}
