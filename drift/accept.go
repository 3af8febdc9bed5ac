package drift

import "slices"

// Acceptance is an object's difference that an operator accepted: while the
// object differs by exactly that (the same Fingerprint), it is no drift.
type Acceptance struct {
	Ref
	Fingerprint string
}

// Accept splits diffs into those still open and those an acceptance covers
// exactly (the same object, differing the same way), each in diffs' order.
func Accept(diffs []ObjectDiff, acceptances []Acceptance) (open, accepted []ObjectDiff) {
	for _, d := range diffs {
		if slices.Contains(acceptances, Acceptance{Ref: d.Ref, Fingerprint: d.Fingerprint}) {
			accepted = append(accepted, d)
		} else {
			open = append(open, d)
		}
	}
	return open, accepted
}
