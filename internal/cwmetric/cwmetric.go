// Package cwmetric builds the CloudWatch metrics of a semaphore for the constructs (the
// Semaphore's and the Cleanup's Metric* methods), so that both read what package metrics'
// writers write.
package cwmetric

import (
	"maps"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/metrics"
)

// PeriodMinutes is the metrics' default period: the reconciler's default period, which writes
// the gauges.
const PeriodMinutes = 5

// New returns the metric name of the semaphore named semaphore (dimension
// metrics.DimensionSemaphore) over PeriodMinutes with statistic, props applied awscdk style;
// a DimensionsMap in props is added to the Semaphore dimension, so that {"LockName": "prod"}
// is the metric of that lock alone.
func New(semaphore, name string, statistic *string, props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	dims := map[string]*string{metrics.DimensionSemaphore: jsii.String(semaphore)}
	m := awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(metrics.Namespace),
		MetricName:    jsii.String(name),
		DimensionsMap: &dims,
		Statistic:     statistic,
		Period:        awscdk.Duration_Minutes(jsii.Number(PeriodMinutes)),
	})
	if props == nil {
		return m
	}
	opts := *props
	if opts.DimensionsMap != nil {
		merged := maps.Clone(dims)
		maps.Copy(merged, *opts.DimensionsMap)
		opts.DimensionsMap = &merged
	}
	return m.With(&opts)
}
