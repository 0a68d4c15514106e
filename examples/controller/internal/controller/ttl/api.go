package ttl

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/vcjob/vcjob"

	"github.com/vcjob/vcjob/examples/controller/pkg/clients"
)

// callTimeout bounds each API call.
const callTimeout = 30 * time.Second

// api is ttl.API on the typed clients: the job read from the API server,
// not from the informer.
type api struct{ volcano clients.Volcano }

func (a api) Get(ctx context.Context, namespace, name string) (*vcjob.Job, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	return a.volcano.Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (a api) Delete(ctx context.Context, namespace, name string, opts metav1.DeleteOptions) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
	defer cancel()
	return a.volcano.Jobs(namespace).Delete(ctx, name, opts)
}
