package controller

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/vcjob/vcjob"
)

// Where the pod informer's pods come from: its own REST client with the
// lean codecs (main.go), or a clientset (the default, and tests with a
// fake one), narrowed to the pods of jobs.

// NewPodClient is a REST client for core/v1 built from cfg that speaks
// protobuf and decodes pods with PodCodecs; PodListWatch lists and
// watches pods on it.
func NewPodClient(cfg *rest.Config) (rest.Interface, error) {
	return NewPodClientForConfigAndClient(cfg, nil)
}

// NewPodClientForConfigAndClient is NewPodClient on httpClient, which
// other clients may share (one connection to the API server); nil builds
// one from cfg.
func NewPodClientForConfigAndClient(cfg *rest.Config, httpClient *http.Client) (rest.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.APIPath = "/api"
	c.GroupVersion = &corev1.SchemeGroupVersion
	c.NegotiatedSerializer = PodCodecs(scheme.Codecs.WithoutConversion())
	c.ContentType = runtime.ContentTypeProtobuf
	c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	if httpClient == nil {
		return rest.RESTClientFor(c)
	}
	return rest.RESTClientForConfigAndClient(c, httpClient)
}

// PodListWatch lists and watches pods (in every namespace) on client, a
// core/v1 REST client such as NewPodClient's. The controller narrows it
// to the pods of jobs (Config.Pods).
func PodListWatch(client rest.Interface) cache.ListerWatcher {
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			list := &corev1.PodList{}
			err := client.Get().Resource("pods").VersionedParams(&o, scheme.ParameterCodec).Do(ctx).Into(list)
			return list, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.Watch = true
			return client.Get().Resource("pods").VersionedParams(&o, scheme.ParameterCodec).Watch(ctx)
		},
	}
}

// clientsetPods lists and watches pods through a clientset (the default
// of Config.Pods, and what tests with a fake clientset use).
func clientsetPods(kube kubernetes.Interface) cache.ListerWatcher {
	// A fake clientset says it cannot stream a list as a watch; the
	// reflector then lists.
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return kube.CoreV1().Pods("").List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return kube.CoreV1().Pods("").Watch(ctx, o)
		},
	}, kube)
}

// jobPods narrows lw to the pods carrying the job-name label every pod of
// a vcjob Job has.
func jobPods(lw cache.ListerWatcher) cache.ListerWatcher {
	narrow := func(o metav1.ListOptions) metav1.ListOptions {
		o.LabelSelector = vcjob.JobNameKey
		return o
	}
	ctxLW := cache.ToListerWatcherWithContext(lw)
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return ctxLW.ListWithContext(ctx, narrow(o))
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return ctxLW.WatchWithContext(ctx, narrow(o))
		},
	}, lw) // whether lw can stream a list
}
