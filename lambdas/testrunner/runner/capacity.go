package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatch"
	cwtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatch/types"

	"github.com/turnstile-sfn/turnstile/internal/capacity"
)

// CloudWatch is the part of the CloudWatch API the runner reads the lock table's consumed
// capacity with; *cloudwatch.Client satisfies it.
type CloudWatch interface {
	GetMetricData(ctx context.Context, in *cloudwatch.GetMetricDataInput, opts ...func(*cloudwatch.Options)) (*cloudwatch.GetMetricDataOutput, error)
}

// DefaultCapacityWait is how long the runner waits, after the run settled, for CloudWatch to
// publish the lock table's last minute of consumed capacity.
const DefaultCapacityWait = 5 * time.Minute

// capacityPoll is the time between two readings of the metrics.
const capacityPoll = 30 * time.Second

// capacityPeriod is the period of the metrics read: DynamoDB publishes its table metrics each
// minute.
const capacityPeriod = time.Minute

// The metric queries' IDs.
const (
	metricRead  = "read"
	metricWrite = "write"
)

// tableCapacity reads the lock table's consumed read and write capacity units from CloudWatch
// (AWS/DynamoDB ConsumedReadCapacityUnits and ConsumedWriteCapacityUnits, Sum) over the whole
// minutes from began to ended: every request to the table, the machines', the hand-off
// function's, the cleanup's and the reconciler's, failed conditional writes included, as
// DynamoDB bills them. It reads again every poll until two readings made after the minute of
// ended closed agree, or cfg.CapacityWait passes. CloudWatch tells neither the units
// of the failed conditions nor item sizes: those figures are marked unknown.
func (r *Runner) tableCapacity(ctx context.Context, cfg Config, began, ended time.Time, poll time.Duration, now func() time.Time) (capacity.Totals, error) {
	start := began.Truncate(capacityPeriod)
	end := ended.Truncate(capacityPeriod).Add(capacityPeriod)
	in := &cloudwatch.GetMetricDataInput{
		StartTime: aws.Time(start),
		EndTime:   aws.Time(end),
		MetricDataQueries: []cwtypes.MetricDataQuery{
			tableMetric(metricRead, "ConsumedReadCapacityUnits", cfg.LockTable),
			tableMetric(metricWrite, "ConsumedWriteCapacityUnits", cfg.LockTable),
		},
	}
	deadline := now().Add(time.Duration(cfg.CapacityWait))
	var last *capacity.Totals // the last reading made after end
	for {
		at := now()
		t, err := r.readCapacity(ctx, in)
		if err != nil {
			return capacity.Totals{}, err
		}
		if at.After(end) && last != nil && *last == t || now().After(deadline) {
			return t, nil
		}
		if at.After(end) {
			last = &t
		}
		select {
		case <-ctx.Done():
			return t, nil
		case <-time.After(poll):
		}
	}
}

// tableMetric is the query of the Sum of a DynamoDB table metric, per minute.
func tableMetric(id, name, table string) cwtypes.MetricDataQuery {
	return cwtypes.MetricDataQuery{
		Id: aws.String(id),
		MetricStat: &cwtypes.MetricStat{
			Metric: &cwtypes.Metric{
				Namespace:  aws.String("AWS/DynamoDB"),
				MetricName: aws.String(name),
				Dimensions: []cwtypes.Dimension{{Name: aws.String("TableName"), Value: aws.String(table)}},
			},
			Period: aws.Int32(int32(capacityPeriod / time.Second)),
			Stat:   aws.String("Sum"),
		},
	}
}

// readCapacity reads the metrics of in once, every page, and adds them up.
func (r *Runner) readCapacity(ctx context.Context, in *cloudwatch.GetMetricDataInput) (capacity.Totals, error) {
	t := capacity.Totals{FailedConditionsUnknown: true, LargestItemUnknown: true}
	p := cloudwatch.NewGetMetricDataPaginator(r.CloudWatch, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return capacity.Totals{}, fmt.Errorf("testrunner: read the lock table's consumed capacity from CloudWatch: %w", err)
		}
		for _, result := range page.MetricDataResults {
			sum := 0.0
			for _, v := range result.Values {
				sum += v
			}
			switch aws.ToString(result.Id) {
			case metricRead:
				t.ReadUnits += sum
			case metricWrite:
				t.WriteUnits += sum
			}
		}
	}
	return t, nil
}
