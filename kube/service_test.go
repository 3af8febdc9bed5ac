package kube_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/styrmin/styrmin/kube"
)

func service(name, release string, selector map[string]string, ports ...corev1.ServicePort) *corev1.Service {
	return &corev1.Service{ObjectMeta: meta(name, release), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Selector: selector, Ports: ports}}
}

func TestReleaseServicesAndComponentService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := fakeClient(
		deployment("web", "shop", "web", 1, 1),
		statefulSet("db", "shop", "db", 1, 1),
		service("db", "shop", map[string]string{"component": "db"}, corev1.ServicePort{Name: "sql", Port: 5432, Protocol: corev1.ProtocolTCP}),
		service("db-headless", "shop", nil, corev1.ServicePort{Port: 5432, Protocol: corev1.ProtocolTCP}),
		service("web", "shop", map[string]string{"component": "web"}, corev1.ServicePort{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP}),
		service("web-of-another-release", "other", map[string]string{"component": "web"}, corev1.ServicePort{Port: 80}),
	)
	services, err := client.ReleaseServices(ctx, ns, "shop")
	require.NoError(t, err)
	var names []string
	for _, s := range services {
		names = append(names, s.Name)
	}
	require.Equal(t, []string{"db", "db-headless", "web"}, names)
	require.Equal(t, []kube.ServicePort{{Name: "http", Port: 80, Protocol: "TCP"}, {Name: "dns", Port: 53, Protocol: "UDP"}}, services[2].Ports)
	require.Equal(t, "web.shop.svc:80", services[2].Address(80))

	web, err := client.ComponentWorkloads(ctx, ns, "shop", component("web", nil))
	require.NoError(t, err)
	db, err := client.ComponentWorkloads(ctx, ns, "shop", component("db", nil))
	require.NoError(t, err)
	tests := []struct {
		name      string
		workloads []kube.Workload
		port      int32
		protocol  string
		want      string // "" for none
	}{
		{"tcp port of the component's service", web, 80, "TCP", "web"},
		{"protocol defaults to TCP", web, 80, "", "web"},
		{"udp port", web, 53, "UDP", "web"},
		{"wrong protocol", web, 53, "TCP", ""},
		{"headless service without selector is skipped", db, 5432, "TCP", "db"},
		{"port of another component", db, 80, "TCP", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := kube.ComponentService(services, tt.workloads, tt.port, tt.protocol)
			require.Equal(t, tt.want != "", ok)
			require.Equal(t, tt.want, got.Name)
		})
	}
}
