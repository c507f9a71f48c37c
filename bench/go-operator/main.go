// The controller-runtime peer of bench/runtime.ts (`npm run bench:runtime`): the same Gizmo
// workload, written as a Kubebuilder user writes an operator (a typed API, ctrl.NewManager,
// NewControllerManagedBy, the manager's cached client), against controller-runtime at the version
// Kubebuilder v4.16.0 pins. Benchmark infrastructure only: kubeforge itself never needs Go.
//
//	go-operator reconcile --kubeconfig F --namespace NS --n 2000 --c 8
//	    starts a manager (cache on NS only, metrics and probes off, no leader election) with one
//	    controller for Gizmo (MaxConcurrentReconciles = c) that reads each object from the cache
//	    and writes status.observedGeneration through the status subresource; once the manager is
//	    elected and the Gizmo informer synced, c goroutines create n Gizmos with a controller-runtime
//	    client. Prints {"ms": first create -> last status write acknowledged, "cpuMs": user + system
//	    CPU time of this process over that interval, "peakRSS": VmHWM bytes}.
//	go-operator cache --kubeconfig F --namespace NS --expected 10000 [--object typed|unstructured]
//	    starts only an informer cache for Gizmos in NS and prints, as bench/runtime.ts's own child
//	    does, {"before": VmRSS before the cache started, "peak": VmHWM once synced (reset to the
//	    RSS just before the cache started), "after": VmRSS after a GC (FreeOSMemory), "bytes": JSON size of one
//	    object, "heap": Go heap growth}.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// The API, as `kubebuilder create api` scaffolds it (bench.kubeforge.io/v1 Gizmo), with the
// deep-copy methods controller-gen would generate written by hand.

var gv = schema.GroupVersion{Group: "bench.kubeforge.io", Version: "v1"}

type GizmoSpec struct {
	Size     int64  `json:"size"`
	Image    string `json:"image"`
	Tier     string `json:"tier"`
	Replicas int32  `json:"replicas"`
	Message  string `json:"message"`
}

type GizmoStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Phase              string `json:"phase,omitempty"`
}

type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GizmoSpec   `json:"spec,omitempty"`
	Status            GizmoStatus `json:"status,omitempty"`
}

type GizmoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gizmo `json:"items"`
}

func (in *Gizmo) DeepCopyInto(out *Gizmo) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (in *Gizmo) DeepCopyObject() kruntime.Object {
	out := new(Gizmo)
	in.DeepCopyInto(out)
	return out
}

func (in *GizmoList) DeepCopyObject() kruntime.Object {
	out := new(GizmoList)
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Gizmo, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

func newScheme() *kruntime.Scheme {
	s := kruntime.NewScheme()
	b := &scheme.Builder{GroupVersion: gv}
	b.Register(&Gizmo{}, &GizmoList{})
	if err := b.AddToScheme(s); err != nil {
		fail(err)
	}
	return s
}

// The same object bench/runtime.ts's gizmo(ns, i) creates.
func gizmo(ns string, i int) *Gizmo {
	tier := "backend"
	if i%2 == 1 {
		tier = "frontend"
	}
	return &Gizmo{
		TypeMeta: metav1.TypeMeta{APIVersion: gv.String(), Kind: "Gizmo"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   ns,
			Name:        fmt.Sprintf("g-%05d", i),
			Labels:      map[string]string{"app": "bench", "shard": strconv.Itoa(i % 16)},
			Annotations: map[string]string{"bench.kubeforge.io/note": "a typical small custom resource"},
		},
		Spec: GizmoSpec{Size: int64(i), Image: "registry.example.com/team/app:1.2.3", Tier: tier, Replicas: 3, Message: "hello from the benchmark"},
	}
}

// GizmoReconciler: read from the cache, write status.observedGeneration if it is behind.
type GizmoReconciler struct {
	client.Client
	mu   sync.Mutex
	seen map[string]struct{}
	n    int
	done chan struct{}
}

func (r *GizmoReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var g Gizmo
	if err := r.Get(ctx, req.NamespacedName, &g); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if g.Status.ObservedGeneration == g.Generation {
		return ctrl.Result{}, nil
	}
	g.Status = GizmoStatus{ObservedGeneration: g.Generation, Phase: "Ready"}
	if err := r.Status().Update(ctx, &g); err != nil {
		return ctrl.Result{}, err
	}
	r.mu.Lock()
	r.seen[req.Name] = struct{}{}
	if len(r.seen) == r.n {
		close(r.done)
	}
	r.mu.Unlock()
	return ctrl.Result{}, nil
}

func reconcileMode(cfg *rest.Config, ns string, n, c int, timeout time.Duration) {
	s := newScheme()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 s,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}},
	})
	if err != nil {
		fail(err)
	}
	r := &GizmoReconciler{Client: mgr.GetClient(), seen: map[string]struct{}{}, n: n, done: make(chan struct{})}
	if err := ctrl.NewControllerManagedBy(mgr).For(&Gizmo{}).WithOptions(controller.Options{MaxConcurrentReconciles: c}).Complete(r); err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	select {
	case <-mgr.Elected():
	case err := <-stopped:
		fail(fmt.Errorf("manager stopped before it was elected: %v", err))
	}
	if _, err := mgr.GetCache().GetInformer(ctx, &Gizmo{}); err != nil { // blocks until synced
		fail(err)
	}
	creator, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		fail(err)
	}
	var next atomic.Int64
	errs := make(chan error, c)
	var wg sync.WaitGroup
	t0 := time.Now()
	cpu0 := cpuTime()
	for w := 0; w < c; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := creator.Create(ctx, gizmo(ns, i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		fail(fmt.Errorf("create: %v", err))
	default:
	}
	select {
	case <-r.done:
	case <-time.After(timeout):
		r.mu.Lock()
		got := len(r.seen)
		r.mu.Unlock()
		fail(fmt.Errorf("timed out after %s: %d of %d objects reconciled", timeout, got, n))
	}
	elapsed := time.Since(t0)
	cpu := cpuTime() - cpu0
	peak := status("VmHWM")
	cancel()
	if err := <-stopped; err != nil {
		fail(err)
	}
	emit(map[string]any{"ms": float64(elapsed.Nanoseconds()) / 1e6, "cpuMs": float64(cpu.Nanoseconds()) / 1e6, "peakRSS": peak})
}

func cacheMode(cfg *rest.Config, ns string, expected int, object string) {
	s := newScheme()
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		fail(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		fail(err)
	}
	c, err := cache.New(cfg, cache.Options{Scheme: s, Mapper: mapper, HTTPClient: httpClient, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		fail(err)
	}
	gvk := gv.WithKind("Gizmo")
	var obj client.Object = &Gizmo{}
	var list client.ObjectList = &GizmoList{}
	if object == "unstructured" {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		obj = u
		ul := &unstructured.UnstructuredList{}
		ul.SetGroupVersionKind(gv.WithKind("GizmoList"))
		list = ul
	}
	// Warm the REST mapping (discovery) and a connection before measuring, as the kubeforge child does.
	if _, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	debug.FreeOSMemory()
	time.Sleep(100 * time.Millisecond)
	beforeMax := status("VmHWM")
	resetPeak()
	before := status("VmRSS")
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	go func() {
		if err := c.Start(ctx); err != nil {
			fail(err)
		}
	}()
	if _, err := c.GetInformer(ctx, obj); err != nil { // blocks until synced
		fail(err)
	}
	if !c.WaitForCacheSync(ctx) {
		fail(fmt.Errorf("cache did not sync"))
	}
	peak := status("VmHWM") // high-water mark: read before anything else allocates
	if err := c.List(ctx, list, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
		fail(err)
	}
	if held := len(itemsOf(list)); held != expected {
		fail(fmt.Errorf("cache holds %d objects, expected %d", held, expected))
	}
	debug.FreeOSMemory() // a GC that also returns freed pages (the list above, decode buffers)
	time.Sleep(200 * time.Millisecond)
	after := status("VmRSS")
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	one := obj.DeepCopyObject().(client.Object)
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "g-00000"}, one); err != nil {
		fail(err)
	}
	b, _ := json.Marshal(one)
	emit(map[string]any{"before": before, "beforeMax": beforeMax, "after": after, "peak": peak, "bytes": len(b), "heap": int64(ms1.HeapAlloc) - int64(ms0.HeapAlloc)})
}

func itemsOf(l client.ObjectList) []any {
	switch l := l.(type) {
	case *GizmoList:
		out := make([]any, len(l.Items))
		for i := range l.Items {
			out[i] = &l.Items[i]
		}
		return out
	case *unstructured.UnstructuredList:
		out := make([]any, len(l.Items))
		for i := range l.Items {
			out[i] = &l.Items[i]
		}
		return out
	}
	return nil
}

// status reads a memory figure of /proc/self/status (VmRSS: the resident set now, what Node's
// process.memoryUsage().rss reads; VmHWM: its high-water mark), in bytes. Not getrusage's
// ru_maxrss: Linux carries that across fork + exec, so this process would start with the peak of
// the Node process that spawned it.
func status(key string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		fail(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				fail(err)
			}
			return kb * 1024
		}
	}
	fail(fmt.Errorf("no %s in /proc/self/status", key))
	return 0
}

// resetPeak sets VmHWM to the current RSS (Linux 4.0+), so that the peak read later is this
// phase's, as bench/runtime.ts's Node child does.
func resetPeak() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// cpuTime: user + system CPU time of this process so far (what Node's process.cpuUsage() sums).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func emit(v map[string]any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "go-operator: %v\n", err)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "reconcile" && os.Args[1] != "cache") {
		fmt.Fprintln(os.Stderr, "usage: go-operator reconcile|cache --kubeconfig F --namespace NS [--n N --c C | --expected N --object typed|unstructured]")
		os.Exit(2)
	}
	mode := os.Args[1]
	// controller-runtime registers --kubeconfig on flag.CommandLine itself (pkg/client/config).
	ns := flag.String("namespace", "", "the namespace to create in and cache")
	n := flag.Int("n", 2000, "reconcile: objects to create")
	c := flag.Int("c", 1, "reconcile: concurrent creators and MaxConcurrentReconciles")
	timeout := flag.Duration("timeout", 10*time.Minute, "reconcile: give up after this long")
	expected := flag.Int("expected", 0, "cache: objects the namespace holds")
	object := flag.String("object", "typed", "cache: typed (the Gizmo struct) or unstructured")
	if err := flag.CommandLine.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	if *ns == "" {
		fail(fmt.Errorf("--namespace is required"))
	}
	ctrl.SetLogger(logr.Discard())
	cfg := ctrl.GetConfigOrDie() // --kubeconfig; client-side rate limiting off (QPS -1), as in a scaffolded main.go
	switch mode {
	case "reconcile":
		reconcileMode(cfg, *ns, *n, *c, *timeout)
	case "cache":
		cacheMode(cfg, *ns, *expected, *object)
	}
}
