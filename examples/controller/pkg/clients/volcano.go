package clients

import (
	"context"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/gentype"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/vcjob/vcjob"
	"github.com/vcjob/vcjob/podgroup"
)

// Resource is a typed client of one namespaced resource: what client-go's
// generated clients offer, here for vcjob's types. gentype's clients and
// fakes both implement it.
type Resource[T runtime.Object, L runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Volcano is a typed clientset for the Volcano resources the controllers
// use; "" as the namespace means all namespaces (for lists and watches).
type Volcano interface {
	Jobs(namespace string) Resource[*vcjob.Job, *vcjob.JobList]
	PodGroups(namespace string) Resource[*podgroup.PodGroup, *podgroup.PodGroupList]
	Commands(namespace string) Resource[*vcjob.Command, *vcjob.CommandList]
	CronJobs(namespace string) Resource[*vcjob.CronJob, *vcjob.CronJobList]
}

// VolcanoClient is Volcano on REST clients built from vcjob's scheme
// registration (JSON: custom resources have no protobuf).
type VolcanoClient struct {
	batch, scheduling, bus rest.Interface
	params                 runtime.ParameterCodec
}

var _ Volcano = (*VolcanoClient)(nil)

// NewVolcanoForConfig builds the clients from cfg. They share one HTTP
// client and one client-side rate limiter (cfg's QPS and burst), as a
// generated clientset's group clients do.
func NewVolcanoForConfig(cfg *rest.Config) (*VolcanoClient, error) {
	return NewVolcanoForConfigAndClient(cfg, nil)
}

// NewVolcanoForConfigAndClient is NewVolcanoForConfig on httpClient,
// which other clients may share (one connection to the API server); nil
// builds one from cfg.
func NewVolcanoForConfigAndClient(cfg *rest.Config, httpClient *http.Client) (*VolcanoClient, error) {
	scheme := runtime.NewScheme()
	if err := vcjob.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := podgroup.AddToScheme(scheme); err != nil {
		return nil, err
	}
	codecs := serializer.NewCodecFactory(scheme)
	out := &VolcanoClient{params: runtime.NewParameterCodec(scheme)}
	base := rest.CopyConfig(cfg)
	if base.UserAgent == "" {
		base.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	base.APIPath = "/apis"
	base.NegotiatedSerializer = codecs.WithoutConversion()
	base.ContentType, base.AcceptContentTypes = runtime.ContentTypeJSON, runtime.ContentTypeJSON
	if httpClient == nil {
		var err error
		if httpClient, err = rest.HTTPClientFor(base); err != nil {
			return nil, err
		}
	}
	if base.RateLimiter == nil && base.QPS > 0 {
		burst := base.Burst
		if burst <= 0 {
			burst = 10
		}
		base.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(base.QPS, burst)
	}
	mk := func(gv schema.GroupVersion) (rest.Interface, error) {
		c := rest.CopyConfig(base)
		c.GroupVersion = &gv
		return rest.RESTClientForConfigAndClient(c, httpClient)
	}
	for _, x := range []struct {
		gv   schema.GroupVersion
		into *rest.Interface
	}{{vcjob.SchemeGroupVersion, &out.batch}, {podgroup.SchemeGroupVersion, &out.scheduling}, {vcjob.BusSchemeGroupVersion, &out.bus}} {
		var err error
		if *x.into, err = mk(x.gv); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Jobs implements Volcano.
func (c *VolcanoClient) Jobs(namespace string) Resource[*vcjob.Job, *vcjob.JobList] {
	return gentype.NewClientWithList[*vcjob.Job, *vcjob.JobList]("jobs", c.batch, c.params, namespace,
		func() *vcjob.Job { return &vcjob.Job{} }, func() *vcjob.JobList { return &vcjob.JobList{} })
}

// PodGroups implements Volcano.
func (c *VolcanoClient) PodGroups(namespace string) Resource[*podgroup.PodGroup, *podgroup.PodGroupList] {
	return gentype.NewClientWithList[*podgroup.PodGroup, *podgroup.PodGroupList]("podgroups", c.scheduling, c.params, namespace,
		func() *podgroup.PodGroup { return &podgroup.PodGroup{} }, func() *podgroup.PodGroupList { return &podgroup.PodGroupList{} })
}

// Commands implements Volcano.
func (c *VolcanoClient) Commands(namespace string) Resource[*vcjob.Command, *vcjob.CommandList] {
	return gentype.NewClientWithList[*vcjob.Command, *vcjob.CommandList]("commands", c.bus, c.params, namespace,
		func() *vcjob.Command { return &vcjob.Command{} }, func() *vcjob.CommandList { return &vcjob.CommandList{} })
}

// CronJobs implements Volcano.
func (c *VolcanoClient) CronJobs(namespace string) Resource[*vcjob.CronJob, *vcjob.CronJobList] {
	return gentype.NewClientWithList[*vcjob.CronJob, *vcjob.CronJobList]("cronjobs", c.batch, c.params, namespace,
		func() *vcjob.CronJob { return &vcjob.CronJob{} }, func() *vcjob.CronJobList { return &vcjob.CronJobList{} })
}
