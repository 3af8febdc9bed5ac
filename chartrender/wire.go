package chartrender

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
)

// registerValues makes gob know, by name, the types values hold beside Go's
// basic ones, to carry them inside an interface. (Not an init: the child's
// init, which reads a request, may run first.)
var registerValues = sync.OnceFunc(func() {
	gob.Register(map[string]any{})
	gob.Register([]any{})
	gob.Register(chartutil.Values{})
	gob.Register(map[string]string{})
	gob.Register([]string{})
})

// wireRequest is a Request as the child reads it.
type wireRequest struct {
	Chart           wireChart
	Values          map[string]any
	Namespace, Name string
	Upgrade         bool
}

// wireChart is a chart with its subcharts, which chart.Chart keeps in an
// unexported field.
type wireChart struct {
	Metadata     *chart.Metadata
	Lock         *chart.Lock
	Templates    []*chart.File
	Values       map[string]any
	Schema       []byte
	Files        []*chart.File
	Dependencies []wireChart
}

// encodeRequest is req as the child reads it.
func encodeRequest(req Request) ([]byte, error) {
	if req.Chart == nil {
		return nil, fmt.Errorf("no chart to render")
	}
	registerValues()
	var buf bytes.Buffer
	w := wireRequest{Chart: toWire(req.Chart), Values: req.Values, Namespace: req.Namespace, Name: req.Name, Upgrade: req.Upgrade}
	if err := gob.NewEncoder(&buf).Encode(w); err != nil {
		return nil, fmt.Errorf("pass the chart to the render: %w", err)
	}
	return buf.Bytes(), nil
}

// decodeRequest reads what encodeRequest wrote.
func decodeRequest(r io.Reader) (Request, error) {
	registerValues()
	var w wireRequest
	if err := gob.NewDecoder(r).Decode(&w); err != nil {
		return Request{}, fmt.Errorf("read the chart to render: %w", err)
	}
	return Request{Chart: fromWire(w.Chart), Values: w.Values, Namespace: w.Namespace, Name: w.Name, Upgrade: w.Upgrade}, nil
}

// toWire is c with its subcharts.
func toWire(c *chart.Chart) wireChart {
	w := wireChart{Metadata: c.Metadata, Lock: c.Lock, Templates: c.Templates, Values: c.Values, Schema: c.Schema, Files: c.Files}
	for _, d := range c.Dependencies() {
		w.Dependencies = append(w.Dependencies, toWire(d))
	}
	return w
}

// fromWire is the chart w describes, its subcharts set.
func fromWire(w wireChart) *chart.Chart {
	c := &chart.Chart{Metadata: w.Metadata, Lock: w.Lock, Templates: w.Templates, Values: w.Values, Schema: w.Schema, Files: w.Files}
	for _, d := range w.Dependencies {
		c.AddDependency(fromWire(d))
	}
	return c
}
