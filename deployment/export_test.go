package deployment

import "time"

// RecordDrift records word as the newest drift read of the deployment
// name, as WatchDrift would after reading the cluster.
func (s *Service) RecordDrift(name, word string) {
	s.drifts.put(name, &Drift{Name: name, Word: word, At: time.Now()})
}
