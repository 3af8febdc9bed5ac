package deployment

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
)

// LogRequest names a container of one of a deployment's pods and the part
// of its log to read.
type LogRequest struct {
	Deployment, Pod string
	// Container is one of the pod's containers; "" is its first.
	Container string
	kube.LogOptions
}

// PodLog is a container's log as a viewer sees it.
type PodLog struct {
	// Pod and Container are those read; Containers are all the pod's.
	Pod, Container string
	Containers     []string
	kube.Log
}

// PodLog reads the last lines of a container of one of the deployment's
// pods, every line through the deployment's redactor, within kube's bounds
// (kube.MaxLogLines, kube.MaxLogBytes, kube.LogTimeout). Only the pods of
// the deployment's release are readable: any other name, even of a pod in
// the same namespace, is ENOTFOUND. The log is read as the namespace's
// reviewer, the identity the web pods read and review as.
func (s *Service) PodLog(ctx context.Context, req LogRequest) (*PodLog, error) {
	if req.TailLines == 0 {
		req.TailLines = kube.DefaultLogLines
	}
	if req.TailLines < 1 || req.TailLines > kube.MaxLogLines {
		return nil, styrmin.Errorf(styrmin.EINVALID, "tail_lines must be between 1 and %d; it is %d.", kube.MaxLogLines, req.TailLines)
	}
	h, err := s.Health(ctx, req.Deployment)
	if err != nil {
		return nil, err
	}
	if h.Word == health.Unknown {
		return nil, styrmin.Errorf(styrmin.EUNAVAILABLE, "Styrmin cannot read the pods of deployment %s now: %s", req.Deployment, h.Reasons[0])
	}
	i := slices.IndexFunc(h.Pods, func(p kube.Pod) bool { return p.Name == req.Pod })
	if i < 0 {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no pod %s.", req.Deployment, req.Pod)
	}
	pod := h.Pods[i]
	if req.Container == "" && len(pod.ContainerNames) > 0 {
		req.Container = pod.ContainerNames[0]
	}
	if !slices.Contains(pod.ContainerNames, req.Container) {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Pod %s has no container %s; its containers are %v.", req.Pod, req.Container, pod.ContainerNames)
	}
	d, err := s.Get(ctx, req.Deployment)
	if err != nil {
		return nil, err
	}
	r, err := s.deploymentRedactor(ctx, d.ID)
	if err != nil {
		return nil, err
	}
	client, err := s.logReader(d.Namespace)
	if err != nil {
		return nil, err
	}
	req.LogOptions.Container = req.Container
	log, err := kube.PodLog(ctx, client, d.Namespace, req.Pod, req.LogOptions, r)
	switch {
	case apierrors.IsNotFound(err):
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "Pod %s of deployment %s is gone.", req.Pod, req.Deployment)
	case apierrors.IsBadRequest(err):
		// An unknown container, or no previous run of it: the API server says which, of names the caller gave.
		return nil, styrmin.Errorf(styrmin.EINVALID, "The cluster refused to read this log: %s", r.String(err.Error()))
	case err != nil:
		return nil, styrmin.Errorf(styrmin.EUNAVAILABLE, "Styrmin could not read the log of pod %s: %s", req.Pod, r.String(err.Error()))
	}
	return &PodLog{Pod: req.Pod, Container: req.Container, Containers: pod.ContainerNames, Log: *log}, nil
}

// logReader is the client that reads logs in namespace: its reviewer's
// (which holds the deployer's read rights, pods/log included, and changes
// nothing), or Styrmin's own where no deployer is managed (tests on a fake
// cluster).
func (s *Service) logReader(namespace string) (kubernetes.Interface, error) {
	cluster, err := s.NeedCluster()
	if err != nil {
		return nil, err
	}
	if cluster.Deployers == nil {
		return cluster.Kube.Clientset, nil
	}
	return cluster.Deployers.Reviewing(namespace)
}
