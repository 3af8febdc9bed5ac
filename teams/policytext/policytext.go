// Package policytext writes and reads a team's policy as text: its CPU and
// memory quotas as Kubernetes quantities (the team page's fields, package
// teams), and its rules as the command lines' flags, which `styrmin team
// policy` (on the database) and `styrmin teams policy` (over the REST API)
// read and print alike. It depends on neither the database nor the API.
package policytext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/styrmin/styrmin"
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

// NoRule is the flag value that removes a rule of a team's policy.
const NoRule = "none"

// Rules are a team's policy as the commands read and print it, teams.Policy's
// fields: nil is "no rule of the team's own".
type Rules struct {
	Namespaces, Drivers                          []string
	MaxDeployments, MaxCPUMillis, MaxMemoryBytes *int64
}

// Flags are a command's policy flags, each the text of one rule.
type Flags struct {
	cmd                                                    *cobra.Command
	namespaces, drivers, maxDeployments, maxCPU, maxMemory string
}

// flagNames are the policy flags, in the order of the rules.
var flagNames = []string{"namespaces", "drivers", "max-deployments", "max-cpu", "max-memory"}

// AddFlags gives cmd the policy flags: --namespaces, --drivers,
// --max-deployments, --max-cpu and --max-memory.
func AddFlags(cmd *cobra.Command) *Flags {
	f := &Flags{cmd: cmd}
	cmd.Flags().StringVar(&f.namespaces, "namespaces", "", `namespace patterns, comma-separated ("": none allowed; "none": the global policy's)`)
	cmd.Flags().StringVar(&f.drivers, "drivers", "", `driver names and label:KEY=VALUE entries, comma-separated ("": no driver; "none": every driver)`)
	cmd.Flags().StringVar(&f.maxDeployments, "max-deployments", "", `most live deployments ("none": no quota)`)
	cmd.Flags().StringVar(&f.maxCPU, "max-cpu", "", `most CPU the team's deployments request together, as Kubernetes writes it: 2, 500m ("none": no quota)`)
	cmd.Flags().StringVar(&f.maxMemory, "max-memory", "", `most memory the team's deployments request together: 4Gi, 512Mi ("none": no quota)`)
	return f
}

// Given lists the policy flags given, as --name=value; empty when none was.
func (f *Flags) Given() []string {
	var set []string
	for _, name := range flagNames {
		if fl := f.cmd.Flags().Lookup(name); fl.Changed {
			set = append(set, fmt.Sprintf("--%s=%s", name, fl.Value))
		}
	}
	return set
}

// Apply replaces in r the rules whose flags were given; a quota it cannot
// read is an EINVALID error that names its flag.
func (f *Flags) Apply(r *Rules) error {
	changed := f.cmd.Flags().Changed
	if changed("namespaces") {
		r.Namespaces = ruleList(f.namespaces)
	}
	if changed("drivers") {
		r.Drivers = ruleList(f.drivers)
	}
	var err error
	if changed("max-deployments") {
		if r.MaxDeployments, err = ruleNumber("--max-deployments", f.maxDeployments, func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }); err != nil {
			return err
		}
	}
	if changed("max-cpu") {
		if r.MaxCPUMillis, err = ruleNumber("--max-cpu", f.maxCPU, ParseCPU); err != nil {
			return err
		}
	}
	if changed("max-memory") {
		if r.MaxMemoryBytes, err = ruleNumber("--max-memory", f.maxMemory, ParseMemory); err != nil {
			return err
		}
	}
	return nil
}

// ruleList is a list flag's rule: nil for "none", else its comma-separated entries.
func ruleList(v string) []string {
	if strings.TrimSpace(v) == NoRule {
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return []string{}
	}
	return strings.Split(v, ",")
}

// ruleNumber is a quota flag's rule: nil for "none", else its value read by parse.
func ruleNumber(flag, v string, parse func(string) (int64, error)) (*int64, error) {
	v = strings.TrimSpace(v)
	if v == NoRule {
		return nil, nil
	}
	n, err := parse(v)
	if err != nil || n < 0 {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s %q is not a quota: give a number of at least 0, or %q to remove the quota.", flag, v, NoRule)
	}
	return &n, nil
}

// Lines are r's rules in words, a rule a line: its name, then its value.
func (r Rules) Lines() [][2]string {
	list := func(entries []string, none string) string {
		switch {
		case entries == nil:
			return none
		case len(entries) == 0:
			return "(none allowed)"
		}
		return strings.Join(entries, ", ")
	}
	quota := func(n *int64, format func(int64) string) string {
		if n == nil {
			return "no quota"
		}
		return format(*n)
	}
	return [][2]string{
		{"namespaces", list(r.Namespaces, "the global namespace policy's")},
		{"drivers", list(r.Drivers, "every driver")},
		{"max deployments", quota(r.MaxDeployments, func(n int64) string { return strconv.FormatInt(n, 10) })},
		{"max cpu", quota(r.MaxCPUMillis, CPUString)},
		{"max memory", quota(r.MaxMemoryBytes, MemoryString)},
	}
}
