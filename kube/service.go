package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Service is a Kubernetes Service of a release.
type Service struct {
	// Name is the Service's name.
	Name string
	// Namespace is the Service's namespace.
	Namespace string
	// Type is ClusterIP, NodePort, LoadBalancer or ExternalName.
	Type string
	// Selector picks the pods behind the Service; empty for a Service without one.
	Selector map[string]string
	// Ports are the ports the Service exposes.
	Ports []ServicePort
}

// ServicePort is one port of a Service.
type ServicePort struct {
	// Name is the port's name, "" when the Service has a single unnamed port.
	Name string
	// Port is the port number the Service listens on.
	Port int32
	// Protocol is TCP, UDP or SCTP.
	Protocol string
}

// Address is the Service's in-cluster address on port: <service>.<namespace>.svc:<port>.
func (s Service) Address(port int32) string {
	return fmt.Sprintf("%s.%s.svc:%d", s.Name, s.Namespace, port)
}

// ReleaseServices lists the Services of release in namespace (by Helm's
// release-name annotation), in the API server's order (by name).
func (c *Client) ReleaseServices(ctx context.Context, namespace, release string) ([]Service, error) {
	list, err := c.Clientset.CoreV1().Services(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("kube: list services in %s: %w", namespace, err)
	}
	var services []Service
	for _, svc := range list.Items {
		if svc.Annotations[ReleaseNameAnnotation] != release {
			continue
		}
		s := Service{Name: svc.Name, Namespace: svc.Namespace, Type: string(svc.Spec.Type), Selector: svc.Spec.Selector}
		for _, p := range svc.Spec.Ports {
			s.Ports = append(s.Ports, ServicePort{Name: p.Name, Port: p.Port, Protocol: string(p.Protocol)})
		}
		services = append(services, s)
	}
	return services, nil
}

// ComponentService picks, among services, the first one that exposes
// port/protocol and whose selector matches the pods of one of workloads (a
// component's): the Service behind a driver's spec.services entry.
func ComponentService(services []Service, workloads []Workload, port int32, protocol string) (Service, bool) {
	for _, s := range services {
		if len(s.Selector) == 0 || !exposes(s, port, protocol) {
			continue
		}
		selector := labels.SelectorFromSet(s.Selector)
		for _, w := range workloads {
			if selector.Matches(labels.Set(w.PodLabels)) {
				return s, true
			}
		}
	}
	return Service{}, false
}

// exposes reports whether s has port with protocol (TCP when "").
func exposes(s Service, port int32, protocol string) bool {
	if protocol == "" {
		protocol = "TCP"
	}
	for _, p := range s.Ports {
		if p.Port == port && (p.Protocol == protocol || p.Protocol == "" && protocol == "TCP") {
			return true
		}
	}
	return false
}
