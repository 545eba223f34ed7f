package manifests_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// root is deploy/k8s, the manifests' directory.
const root = ".."

// drainTimeout is proctor serve's default --drain-timeout, in seconds: the
// grace period before a pod is killed must exceed it.
const drainTimeout = 30

// typeMeta is what names a manifest's kind.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// newObject returns the API type of a manifest's kind; unknown kinds fail.
func newObject(t typeMeta) (any, error) {
	switch t.APIVersion + " " + t.Kind {
	case "v1 Namespace":
		return &corev1.Namespace{}, nil
	case "v1 PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, nil
	case "v1 Service":
		return &corev1.Service{}, nil
	case "apps/v1 Deployment":
		return &appsv1.Deployment{}, nil
	case "batch/v1 Job":
		return &batchv1.Job{}, nil
	case "kustomize.config.k8s.io/v1beta1 Kustomization":
		return &kustomization{}, nil
	}
	return nil, fmt.Errorf("kind %s %s: not one this test knows; add its API type", t.APIVersion, t.Kind)
}

// kustomization is the part of kustomize's Kustomization these manifests
// use; a field outside it fails, as a typo would.
type kustomization struct {
	typeMeta  `json:",inline"`
	Namespace string   `json:"namespace"`
	Resources []string `json:"resources"`
	Labels    []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeSelectors bool              `json:"includeSelectors"`
	} `json:"labels"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// object is one decoded manifest and where it came from.
type object struct {
	file string
	obj  any
}

var docSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// decodeAll decodes every YAML document under deploy/k8s strictly:
// unknown or duplicate fields and values of the wrong type are errors.
func decodeAll(t *testing.T) []object {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(root, "*", "*.yaml"))
	files = append(files, more...)
	if len(files) < 8 {
		t.Fatalf("found only %d manifests: %v", len(files), files)
	}
	var objs []object
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range docSeparator.Split(string(data), -1) {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			var tm typeMeta
			if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
				t.Errorf("%s document %d: %v", file, i, err)
				continue
			}
			obj, err := newObject(tm)
			if err != nil {
				t.Errorf("%s document %d: %v", file, i, err)
				continue
			}
			if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
				t.Errorf("%s document %d (%s): %v", file, i, tm.Kind, err)
				continue
			}
			objs = append(objs, object{file, obj})
		}
	}
	return objs
}

func stripComments(doc string) string {
	var b bytes.Buffer
	for line := range strings.Lines(doc) {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestManifestsDecodeStrictly is the typo check, and checks that every
// kustomization lists files that exist.
func TestManifestsDecodeStrictly(t *testing.T) {
	for _, o := range decodeAll(t) {
		k, ok := o.obj.(*kustomization)
		if !ok {
			continue
		}
		for _, r := range k.Resources {
			if _, err := os.Stat(filepath.Join(filepath.Dir(o.file), r)); err != nil {
				t.Errorf("%s lists %s: %v", o.file, r, err)
			}
		}
	}
}

// TestServeDeployment checks what the Deployment must keep: one replica
// replaced with Recreate (bbolt: one process per database), probes on
// /healthz, a grace period above the drain timeout, a non-root pod,
// resource requests and limits, and the Prometheus scrape annotation.
func TestServeDeployment(t *testing.T) {
	var deps []*appsv1.Deployment
	for _, o := range decodeAll(t) {
		if d, ok := o.obj.(*appsv1.Deployment); ok {
			deps = append(deps, d)
		}
	}
	if len(deps) != 1 {
		t.Fatalf("%d Deployments, want 1", len(deps))
	}
	d := deps[0]
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %v, strategy %q: want 1 replica and Recreate (one process per bbolt database)", d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	pod := d.Spec.Template
	if pod.Annotations["prometheus.io/scrape"] != "true" || pod.Annotations["prometheus.io/path"] != "/metrics" {
		t.Errorf("scrape annotations %v", pod.Annotations)
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g <= drainTimeout {
		t.Errorf("terminationGracePeriodSeconds %v: want more than the drain timeout, %ds", g, drainTimeout)
	}
	checkPod(t, "deployment", pod.Spec)
	c := pod.Spec.Containers[0]
	// Readiness is /readyz, which fails once a drain begins; liveness is
	// /healthz, which does not (a draining pod is not restarted).
	for name, probe := range map[string]struct {
		p    *corev1.Probe
		path string
	}{"liveness": {c.LivenessProbe, "/healthz"}, "readiness": {c.ReadinessProbe, "/readyz"}} {
		if p := probe.p; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != probe.path {
			t.Errorf("%s probe %+v: want GET %s", name, p, probe.path)
		}
	}
}

// TestShardedJob checks that the Job is Indexed with as many completions
// as the shards it asks proctor for, and that the merge reads where the
// shards are written.
func TestShardedJob(t *testing.T) {
	jobs := map[string]*batchv1.Job{}
	for _, o := range decodeAll(t) {
		if j, ok := o.obj.(*batchv1.Job); ok {
			jobs[j.Name] = j
		}
	}
	eval, merge := jobs["proctor-eval"], jobs["proctor-merge"]
	if eval == nil || merge == nil {
		t.Fatalf("jobs %v: want proctor-eval and proctor-merge", slices.Collect(maps.Keys(jobs)))
	}
	if eval.Spec.CompletionMode == nil || *eval.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", eval.Spec.CompletionMode)
	}
	args := eval.Spec.Template.Spec.Containers[0].Args
	shards, _ := strconv.Atoi(flag(args, "num-shards"))
	if eval.Spec.Completions == nil || int(*eval.Spec.Completions) != shards || shards < 2 {
		t.Errorf("completions %v, --num-shards %d: want them equal", eval.Spec.Completions, shards)
	}
	if flag(args, "shard-index") != "" {
		t.Error("the Job sets --shard-index: each pod's index comes from JOB_COMPLETION_INDEX")
	}
	out := flag(args, "shard-out")
	margs := merge.Spec.Template.Spec.Containers[0].Args
	if len(margs) < 2 || margs[0] != "merge" || margs[1] != out {
		t.Errorf("merge args %v: want merge %s", margs, out)
	}
	checkPod(t, "job", eval.Spec.Template.Spec)
	checkPod(t, "merge job", merge.Spec.Template.Spec)
}

// checkPod checks that a pod runs as non-root with resources set.
func checkPod(t *testing.T, what string, spec corev1.PodSpec) {
	t.Helper()
	if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("%s: the pod must run as non-root", what)
	}
	for _, c := range spec.Containers {
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s: container %s has no CPU request or memory limit", what, c.Name)
		}
		if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
			t.Errorf("%s: container %s must not allow privilege escalation", what, c.Name)
		}
	}
}

// flag is the value of --name=value in args ("" when absent).
func flag(args []string, name string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
	}
	return ""
}
