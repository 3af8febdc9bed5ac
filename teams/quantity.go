package teams

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/resource"
)

// errNegative refuses a negative quota.
var errNegative = errors.New("a quota is at least 0")

// ParseCPU reads a CPU quota as Kubernetes writes it (2, 500m), in
// millicores.
func ParseCPU(s string) (int64, error) {
	q, err := parseQuota(s)
	return q.MilliValue(), err
}

// ParseMemory reads a memory quota as Kubernetes writes it (512Mi, 4Gi), in
// bytes.
func ParseMemory(s string) (int64, error) {
	q, err := parseQuota(s)
	return q.Value(), err
}

// parseQuota reads a quantity of at least 0.
func parseQuota(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err == nil && q.Sign() < 0 {
		err = errNegative
	}
	return q, err
}

// CPUString writes millicores as Kubernetes does (2, 500m).
func CPUString(millis int64) string {
	return resource.NewMilliQuantity(millis, resource.DecimalSI).String()
}

// MemoryString writes bytes as Kubernetes does (512Mi, 4Gi).
func MemoryString(bytes int64) string {
	return resource.NewQuantity(bytes, resource.BinarySI).String()
}
