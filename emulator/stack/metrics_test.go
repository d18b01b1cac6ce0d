package stack

import (
	"fmt"
	"io"
	"sync"
	"testing"
)

// TestMetricWriterKeepsEMFLines: lines cut across writes, concurrent writers, a prefix to cut,
// ordinary log lines dropped and an EMF document that breaks the specification counted.
func TestMetricWriterKeepsEMFLines(t *testing.T) {
	var m metricLog
	emf := func(v int) string {
		return fmt.Sprintf(`{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"N","Dimensions":[["D"]],"Metrics":[{"Name":"M","Unit":"Count"}]}]},"D":"d","M":%d}`, v)
	}
	runtime := m.writer("Runtime", "[fn] ")
	io.WriteString(runtime, "[fn] START RequestId: 1\n[fn] "+emf(1)[:20])
	io.WriteString(runtime, emf(1)[20:]+"\n[fn] {\"_aws\":{\"CloudWatchMetrics\":[]}}\n")
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() { io.WriteString(m.writer("InProcess", ""), emf(100+i)+"\n") })
	}
	wg.Wait()
	sum := map[string]float64{}
	count := map[string]int{}
	for _, s := range m.samples {
		sum[s.Function] += s.Value
		count[s.Function]++
		if s.Name != "M" || s.Dimensions["D"] != "d" || s.Namespace != "N" {
			t.Errorf("sample %+v", s)
		}
	}
	if count["Runtime"] != 1 || sum["Runtime"] != 1 || count["InProcess"] != 10 || sum["InProcess"] != 1045 {
		t.Errorf("samples by function: %v with sums %v, want Runtime 1 (1), InProcess 10 (1045)", count, sum)
	}
	if m.invalid != 1 {
		t.Errorf("invalid lines = %d, want 1 (no Timestamp)", m.invalid)
	}
}
