package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

// scrape reads m as Prometheus does: over HTTP, with its text parser.
func scrape(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// counterValue is the value of the metric name with labels (nil: the
// only one) in m; -1 when there is none.
func counterValue(t *testing.T, m *Metrics, name string, labels map[string]string) float64 {
	t.Helper()
	f, ok := scrape(t, m)[name]
	if !ok {
		return -1
	}
metrics:
	for _, x := range f.Metric {
		for _, l := range x.Label {
			if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
				continue metrics
			}
		}
		switch {
		case x.Counter != nil:
			return x.Counter.GetValue()
		case x.Gauge != nil:
			return x.Gauge.GetValue()
		}
	}
	return -1
}
