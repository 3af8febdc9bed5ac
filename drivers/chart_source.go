package drivers

// ChartSource is where a chart reference points.
type ChartSource string

// The chart sources a location can name.
const (
	ChartInBundle   ChartSource = locationLocal
	ChartOCI        ChartSource = locationOCI
	ChartRepository ChartSource = locationRepo
)

// Remote reports whether the chart is downloaded (from an OCI registry or an
// https chart repository) rather than inside the bundle.
func (c ChartRef) Remote() bool {
	s := c.Source()
	return s == ChartOCI || s == ChartRepository
}

// Source says where the chart is: in the bundle, in an OCI registry or in an
// https chart repository; "" for a location of no known form (a valid driver has none).
func (c ChartRef) Source() ChartSource {
	switch kind := chartLocationKind(c.Location); kind {
	case locationLocal, locationOCI, locationRepo:
		return ChartSource(kind)
	}
	return ""
}
