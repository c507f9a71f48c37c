// A Go operator on multicluster-runtime v0.24.1 and its kubeconfig provider, for
// test/oracle/multicluster.test.ts: it watches the kubeconfig Secrets in the namespace given by
// -namespace of the cluster KUBECONFIG names, runs one ConfigMap controller on every engaged
// cluster, and prints one JSON line per reconcile ({"cluster","namespace","name"}) on stdout, so
// the test can show that a kubeforge operator and a Go one engage the same clusters from the same
// Secrets. Test infrastructure only: kubeforge itself never needs Go.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mcmanager "sigs.k8s.io/multicluster-runtime/pkg/manager"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"
	"sigs.k8s.io/multicluster-runtime/providers/kubeconfig"
)

func main() {
	namespace := flag.String("namespace", "", "namespace of the kubeconfig Secrets")
	flag.Parse()
	if err := run(*namespace); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(namespace string) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	provider := kubeconfig.New(kubeconfig.Options{Namespace: namespace})
	mgr, err := mcmanager.New(cfg, provider, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	if err != nil {
		return err
	}
	if err := provider.SetupWithManager(context.Background(), mgr); err != nil {
		return err
	}
	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	err = mcbuilder.ControllerManagedBy(mgr).
		Named("oracle-configmaps").
		For(&corev1.ConfigMap{}).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			return ctrl.Result{}, out.Encode(map[string]string{
				"cluster":   req.ClusterName.String(),
				"namespace": req.Namespace,
				"name":      req.Name,
			})
		}))
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
