// Package fake is a fake of clients.Volcano on client-go's object
// tracker, for tests: the same reactors and tracker as a generated fake
// clientset.
//
//	vc := fake.NewVolcano(job) // holds job
//	vc.PrependReactor("update", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) { ... })
//	got, err := vc.Jobs("ns").Get(ctx, "demo", metav1.GetOptions{})
package fake
