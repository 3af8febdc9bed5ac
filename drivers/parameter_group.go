package drivers

import "slices"

// ParameterGroup is the parameters of one form section (Parameter.Group), in
// declaration order; Name is "" for the parameters without a group.
type ParameterGroup struct {
	Name       string
	Parameters []Parameter
}

// Groups sorts params into their form sections as the contract says: the
// parameters without a group first, then each group in the order it first
// appears.
func Groups(params []Parameter) []ParameterGroup {
	var groups []ParameterGroup
	index := map[string]int{}
	if slices.ContainsFunc(params, func(p Parameter) bool { return p.Group == "" }) {
		groups = append(groups, ParameterGroup{})
		index[""] = 0
	}
	for _, p := range params {
		i, ok := index[p.Group]
		if !ok {
			i = len(groups)
			index[p.Group] = i
			groups = append(groups, ParameterGroup{Name: p.Group})
		}
		groups[i].Parameters = append(groups[i].Parameters, p)
	}
	return groups
}
