package template

import (
	"encoding/json"
	"time"
)

// Alarm is an AWS::CloudWatch::Alarm on a single metric (metric-math alarms keep only their
// name, ARN and actions).
type Alarm struct {
	// LogicalID is the resource's logical ID in the template.
	LogicalID string
	// CDKPath is the construct path CDK recorded in the aws:cdk:path metadata ("" if none).
	CDKPath string
	// Name is the physical alarm name (AlarmName, or the emulator's deterministic name).
	Name string
	// ARN is the alarm's ARN.
	ARN string
	// Namespace is the metric's namespace, e.g. AWS/SQS.
	Namespace string
	// MetricName is the metric's name, e.g. ApproximateNumberOfMessagesVisible.
	MetricName string
	// Dimensions are the metric's dimensions, in template order.
	Dimensions []Dimension
	// Statistic is the statistic, e.g. Maximum.
	Statistic string
	// Period is the statistic's period.
	Period time.Duration
	// EvaluationPeriods is how many periods are compared with the threshold.
	EvaluationPeriods int
	// DatapointsToAlarm is how many breaching periods trigger the alarm (0 if not set).
	DatapointsToAlarm int
	// Threshold is the value compared with the statistic.
	Threshold float64
	// ComparisonOperator is e.g. GreaterThanOrEqualToThreshold.
	ComparisonOperator string
	// TreatMissingData is breaching, notBreaching, ignore or missing ("" if not set).
	TreatMissingData string
	// AlarmActions are the ARNs notified when the alarm fires.
	AlarmActions []string
}

// Dimension is one metric dimension.
type Dimension struct {
	// Name is the dimension's name, e.g. QueueName.
	Name string `json:"Name"`
	// Value is the dimension's value.
	Value string `json:"Value"`
}

// alarm resolves an AWS::CloudWatch::Alarm.
func (r *resolver) alarm(id string, res rawResource) (Alarm, error) {
	a := Alarm{LogicalID: id, CDKPath: res.cdkPath()}
	name, err := r.physicalName(id, res)
	if err != nil {
		return a, err
	}
	attrs, _, err := r.attributes(id, res, name)
	if err != nil {
		return a, err
	}
	a.Name, a.ARN = name, attrs["Arn"]
	for _, field := range []struct {
		property string
		dst      *string
	}{
		{"Namespace", &a.Namespace},
		{"MetricName", &a.MetricName},
		{"Statistic", &a.Statistic},
		{"ComparisonOperator", &a.ComparisonOperator},
		{"TreatMissingData", &a.TreatMissingData},
	} {
		if *field.dst, err = r.stringProperty(id, res, field.property, ""); err != nil {
			return a, err
		}
	}
	if a.Period, err = r.secondsProperty(id, res, "Period", 0); err != nil {
		return a, err
	}
	if a.EvaluationPeriods, err = r.intProperty(id, res, "EvaluationPeriods", 0); err != nil {
		return a, err
	}
	if a.DatapointsToAlarm, err = r.intProperty(id, res, "DatapointsToAlarm", 0); err != nil {
		return a, err
	}
	var threshold json.Number
	if present, err := r.decodeProperty(id, res, "Threshold", &threshold); err != nil {
		return a, err
	} else if present {
		if a.Threshold, err = threshold.Float64(); err != nil {
			return a, propertySite(id, "Threshold").failf(ErrInvalidProperty, "Threshold must be a number")
		}
	}
	if _, err := r.decodeProperty(id, res, "Dimensions", &a.Dimensions); err != nil {
		return a, err
	}
	if _, err := r.decodeProperty(id, res, "AlarmActions", &a.AlarmActions); err != nil {
		return a, err
	}
	return a, nil
}
