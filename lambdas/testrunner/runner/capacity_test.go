package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/turnstile-sfn/turnstile/internal/capacity"
)

// fakeCloudWatch answers each GetMetricData with the next of its readings (the last one over
// again), and advances the clock a minute per call.
type fakeCloudWatch struct {
	readings [][2][]float64 // read values, write values
	calls    int
	clock    *time.Time
	inputs   []*cloudwatch.GetMetricDataInput
	err      error
}

func (f *fakeCloudWatch) GetMetricData(_ context.Context, in *cloudwatch.GetMetricDataInput, _ ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error) {
	f.inputs = append(f.inputs, in)
	*f.clock = f.clock.Add(time.Minute)
	if f.err != nil {
		return nil, f.err
	}
	r := f.readings[min(f.calls, len(f.readings)-1)]
	f.calls++
	return &cloudwatch.GetMetricDataOutput{MetricDataResults: []cwtypes.MetricDataResult{
		{Id: aws.String(metricRead), Values: r[0]},
		{Id: aws.String(metricWrite), Values: r[1]},
	}}, nil
}

func TestTableCapacityWaitsForTheLastMinute(t *testing.T) {
	began := time.Date(2026, 11, 24, 10, 0, 30, 0, time.UTC)
	ended := began.Add(90 * time.Second) // 10:02:00: the minutes 10:00 to 10:02
	clock := ended
	cw := &fakeCloudWatch{clock: &clock, readings: [][2][]float64{
		{{10}, {20}},             // 10:03, before the minute of ended closed
		{{10, 5}, {20, 8}},       // 10:04
		{{10, 5, 1}, {20, 8, 2}}, // 10:05: the last minute came in
		{{10, 5, 1}, {20, 8, 2}}, // 10:06: the same: done
	}}
	r := &Runner{CloudWatch: cw}
	cfg := Config{LockTable: "locks", CapacityWait: Duration(time.Hour)}
	got, err := r.tableCapacity(t.Context(), cfg, began, ended, time.Millisecond, func() time.Time { return clock })
	if err != nil {
		t.Fatalf("tableCapacity: %v", err)
	}
	want := capacity.Totals{ReadUnits: 16, WriteUnits: 30, FailedConditionsUnknown: true, LargestItemUnknown: true}
	if got != want || cw.calls != 4 {
		t.Errorf("tableCapacity = %+v after %d readings, want %+v after 4", got, cw.calls, want)
	}
	in := cw.inputs[0]
	if !aws.ToTime(in.StartTime).Equal(began.Truncate(time.Minute)) || !aws.ToTime(in.EndTime).Equal(time.Date(2026, 11, 24, 10, 3, 0, 0, time.UTC)) {
		t.Errorf("window %v to %v, want 10:00 to 10:03", aws.ToTime(in.StartTime), aws.ToTime(in.EndTime))
	}
	for i, name := range []string{"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits"} {
		q := in.MetricDataQueries[i].MetricStat
		if aws.ToString(q.Metric.MetricName) != name || aws.ToString(q.Metric.Namespace) != "AWS/DynamoDB" ||
			aws.ToString(q.Stat) != "Sum" || aws.ToInt32(q.Period) != 60 || aws.ToString(q.Metric.Dimensions[0].Value) != "locks" {
			t.Errorf("query %d = %+v, want the per-minute Sum of %s of the table locks", i, q, name)
		}
	}
}

func TestTableCapacityGivesUpAfterTheWait(t *testing.T) {
	began := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	clock := began
	cw := &fakeCloudWatch{clock: &clock, readings: [][2][]float64{{{1}, {1}}, {{2}, {2}}, {{3}, {3}}, {{4}, {4}}, {{5}, {5}}}}
	r := &Runner{CloudWatch: cw}
	got, err := r.tableCapacity(t.Context(), Config{LockTable: "locks", CapacityWait: Duration(3 * time.Minute)}, began, began, time.Millisecond, func() time.Time { return clock })
	if err != nil {
		t.Fatalf("tableCapacity: %v", err)
	}
	if got.WriteUnits != 4 {
		t.Errorf("tableCapacity = %+v, want the first reading that ends after the wait (4 write units)", got)
	}
}

func TestTableCapacityNamesCloudWatchErrors(t *testing.T) {
	clock := time.Now()
	r := &Runner{CloudWatch: &fakeCloudWatch{clock: &clock, err: errors.New("AccessDenied")}}
	_, err := r.tableCapacity(t.Context(), Config{LockTable: "locks", CapacityWait: Duration(time.Minute)}, clock, clock, time.Millisecond, time.Now)
	if err == nil || !errors.Is(err, r.CloudWatch.(*fakeCloudWatch).err) {
		t.Errorf("tableCapacity error = %v, want the CloudWatch error wrapped", err)
	}
}
