package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/styrmin/styrmin/lru"
)

var (
	cacheHitsDesc = prometheus.NewDesc("styrmin_cache_hits_total",
		"Lookups that an in-memory cache answered, by cache.", []string{"cache"}, nil)
	cacheMissesDesc = prometheus.NewDesc("styrmin_cache_misses_total",
		"Lookups that an in-memory cache could not answer (the value was read or made again), by cache.", []string{"cache"}, nil)
)

// cacheCollector exports the lookups of the caches it watches, read from
// each cache at scrape time. Its names are fixed words given by the wiring.
type cacheCollector struct {
	mu     sync.Mutex
	caches map[string]func() lru.Stats
}

// Describe sends the two descriptions of the caches' series.
func (c *cacheCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- cacheHitsDesc
	ch <- cacheMissesDesc
}

// Collect reads every watched cache's lookups.
func (c *cacheCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, stats := range c.caches {
		s := stats()
		ch <- prometheus.MustNewConstMetric(cacheHitsDesc, prometheus.CounterValue, float64(s.Hits), name)
		ch <- prometheus.MustNewConstMetric(cacheMissesDesc, prometheus.CounterValue, float64(s.Misses), name)
	}
}

// WatchCache exports the hits and misses of the cache called name (a fixed
// word such as "driver_pages", never anything a user sent), read through
// stats at every scrape. Watching a name again replaces the earlier cache:
// a process has one cache of each name.
func (m *Metrics) WatchCache(name string, stats func() lru.Stats) {
	m.caches.mu.Lock()
	defer m.caches.mu.Unlock()
	m.caches.caches[name] = stats
}
