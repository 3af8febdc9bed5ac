package teams

import "github.com/styrmin/styrmin/teams/policytext"

// The quotas' one reading and writing lives in policytext, which the client
// command line shares without this package's database.

// ParseCPU reads a CPU quota as Kubernetes writes it (2, 500m), in
// millicores.
func ParseCPU(s string) (int64, error) { return policytext.ParseCPU(s) }

// ParseMemory reads a memory quota as Kubernetes writes it (512Mi, 4Gi), in
// bytes.
func ParseMemory(s string) (int64, error) { return policytext.ParseMemory(s) }

// CPUString writes millicores as Kubernetes does (2, 500m).
func CPUString(millis int64) string { return policytext.CPUString(millis) }

// MemoryString writes bytes as Kubernetes does (512Mi, 4Gi).
func MemoryString(bytes int64) string { return policytext.MemoryString(bytes) }
