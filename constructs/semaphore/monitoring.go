package semaphore

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/interfaces/interfacesawscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/internal/cwmetric"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// Defaults of the metrics and alarms.
const (
	// DefaultMetricPeriodMinutes is the period of the Metric* methods' metrics and of the
	// alarms: the reconciler's default period, which writes the gauges.
	DefaultMetricPeriodMinutes = cwmetric.PeriodMinutes
	// DefaultOldestWaitAlarmMinutes is AlarmProps.OldestWait's default: a waiter that has
	// waited longer raises the OldestWait alarm.
	DefaultOldestWaitAlarmMinutes = 15
)

// Construct IDs of what AddAlarms and AddDashboard create under the semaphore.
const (
	// AlarmSlotsFreedByReconcilerID is the ID of the alarm on SlotsFreedByReconciler.
	AlarmSlotsFreedByReconcilerID = "SlotsFreedByReconcilerAlarm"
	// AlarmOldestWaitID is the ID of the alarm on OldestWait.
	AlarmOldestWaitID = "OldestWaitAlarm"
	// AlarmAcquireTimeoutsID is the ID of the alarm on AcquireTimeouts.
	AlarmAcquireTimeoutsID = "AcquireTimeoutsAlarm"
	// DashboardID is the dashboard's ID.
	DashboardID = "Dashboard"
)

// Monitoring is what a Semaphore offers to watch it: its metrics (namespace metrics.Namespace,
// written by the hand-off function and the reconciler as EMF lines), alarms on them and a
// dashboard. Each Metric* method returns the metric of every lock of the semaphore (dimension
// Semaphore = MetricsName()) over DefaultMetricPeriodMinutes with the statistic it names;
// props override any of these, and a DimensionsMap in props is added to the Semaphore
// dimension: {"LockName": "deploys"} is the metric of that lock alone. The hand-off metrics
// exist under the WaitCallback strategy only; under WaitPoll an acquire time-out fails the
// execution (StateMachine().MetricFailed).
type Monitoring interface {
	// MetricsName is the value of the Semaphore dimension of the semaphore's metrics: its
	// construct path.
	MetricsName() string
	// MetricSlotsHeld is the number of slots held, as the reconciler reads it each run (Count;
	// default statistic Maximum).
	MetricSlotsHeld(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricExecutionsWaiting is the number of executions in the queue, as the reconciler reads
	// it each run (Count; Maximum).
	MetricExecutionsWaiting(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricOldestWait is how long the oldest waiter had waited when the reconciler last read
	// the queue (Milliseconds; Maximum).
	MetricOldestWait(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricWaitTime is how long each admitted waiter waited in the queue (Milliseconds;
	// Average; p99 and Maximum are useful too).
	MetricWaitTime(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricHandOffLatency is how long a release that handed its slot to a waiter took until
	// the waiter was woken (Milliseconds; Average).
	MetricHandOffLatency(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricSlotsHandedOn counts the slots handed straight from a release to a waiter (Count;
	// Sum).
	MetricSlotsHandedOn(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricAcquireTimeouts counts the waiters whose acquire timed out (Count; Sum).
	MetricAcquireTimeouts(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricSlotsFreedByCleanup counts the slots the cleanup machine freed for executions that
	// failed, timed out or were stopped holding one (Count; Sum).
	MetricSlotsFreedByCleanup(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricSlotsFreedByReconciler counts the slots the reconciler freed (Count; Sum): each
	// means a status-change event was lost or the cleanup did not run.
	MetricSlotsFreedByReconciler(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// AddAlarms creates the semaphore's alarms (see AlarmProps for their defaults) with the
	// caller's actions. Call it once.
	AddAlarms(props *AlarmProps) Alarms
	// AddDashboard creates a CloudWatch dashboard of the semaphore's metrics, its state
	// machine's executions, and the alarms AddAlarms created before. Call it once.
	AddDashboard(props *DashboardProps) awscloudwatch.Dashboard
}

// AlarmProps configures AddAlarms. Every alarm evaluates one period of
// DefaultMetricPeriodMinutes and treats missing data as not breaching (the metrics are written
// when something happens, and the gauges each reconciler run).
type AlarmProps struct {
	// Actions run when an alarm fires, e.g. awscloudwatchactions.NewSnsAction(topic).
	// Default: none.
	Actions []awscloudwatch.IAlarmAction
	// OldestWait is the longest wait that does not raise the OldestWait alarm.
	// Default: DefaultOldestWaitAlarmMinutes minutes.
	OldestWait awscdk.Duration
}

// Alarms are the alarms AddAlarms creates.
type Alarms struct {
	// SlotsFreedByReconciler fires when the reconciler frees a slot (at least 1 in a period):
	// an event was lost, or the cleanup did not run.
	SlotsFreedByReconciler awscloudwatch.Alarm
	// OldestWait fires when a waiter has waited longer than AlarmProps.OldestWait.
	OldestWait awscloudwatch.Alarm
	// AcquireTimeouts fires when an acquire times out (more than 0 in a period).
	AcquireTimeouts awscloudwatch.Alarm
}

// DashboardProps configures AddDashboard.
type DashboardProps struct {
	// DashboardName is the dashboard's name. Default: a name CloudFormation generates.
	DashboardName *string
}

// wireMetrics gives the hand-off function the value of the Semaphore dimension (the cleanup's
// reconciler gets it from the cleanup: the semaphore is its scope).
func (s *semaphore) wireMetrics() {
	if s.handOff != nil {
		s.handOff.AddEnvironment(jsii.String(metrics.EnvSemaphore), jsii.String(s.MetricsName()), nil)
	}
}

// MetricsName implements Monitoring.
func (s *semaphore) MetricsName() string { return *s.Node().Path() }

// metric returns the semaphore's metric name with its default statistic, props applied.
func (s *semaphore) metric(name string, statistic *string, props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return cwmetric.New(s.MetricsName(), name, statistic, props)
}

// MetricSlotsHeld implements Monitoring.
func (s *semaphore) MetricSlotsHeld(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.SlotsHeld, awscloudwatch.Stats_MAXIMUM(), props)
}

// MetricExecutionsWaiting implements Monitoring.
func (s *semaphore) MetricExecutionsWaiting(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.ExecutionsWaiting, awscloudwatch.Stats_MAXIMUM(), props)
}

// MetricOldestWait implements Monitoring.
func (s *semaphore) MetricOldestWait(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.OldestWait, awscloudwatch.Stats_MAXIMUM(), props)
}

// MetricWaitTime implements Monitoring.
func (s *semaphore) MetricWaitTime(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.WaitTime, awscloudwatch.Stats_AVERAGE(), props)
}

// MetricHandOffLatency implements Monitoring.
func (s *semaphore) MetricHandOffLatency(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.HandOffLatency, awscloudwatch.Stats_AVERAGE(), props)
}

// MetricSlotsHandedOn implements Monitoring.
func (s *semaphore) MetricSlotsHandedOn(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.SlotsHandedOn, awscloudwatch.Stats_SUM(), props)
}

// MetricAcquireTimeouts implements Monitoring.
func (s *semaphore) MetricAcquireTimeouts(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.AcquireTimeouts, awscloudwatch.Stats_SUM(), props)
}

// MetricSlotsFreedByCleanup implements Monitoring.
func (s *semaphore) MetricSlotsFreedByCleanup(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.SlotsFreedByCleanup, awscloudwatch.Stats_SUM(), props)
}

// MetricSlotsFreedByReconciler implements Monitoring.
func (s *semaphore) MetricSlotsFreedByReconciler(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return s.metric(metrics.SlotsFreedByReconciler, awscloudwatch.Stats_SUM(), props)
}

// AddAlarms implements Monitoring.
func (s *semaphore) AddAlarms(props *AlarmProps) Alarms {
	var p AlarmProps
	if props != nil {
		p = *props
	}
	oldest := p.OldestWait
	if oldest == nil {
		oldest = awscdk.Duration_Minutes(jsii.Number(DefaultOldestWaitAlarmMinutes))
	}
	alarm := func(id string, metric awscloudwatch.Metric, op awscloudwatch.ComparisonOperator, threshold float64, description string) awscloudwatch.Alarm {
		a := awscloudwatch.NewAlarm(s, jsii.String(id), &awscloudwatch.AlarmProps{
			Metric:             metric,
			Threshold:          jsii.Number(threshold),
			ComparisonOperator: op,
			EvaluationPeriods:  jsii.Number(1),
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
			AlarmDescription:   jsii.String(description),
		})
		for _, action := range p.Actions {
			a.AddAlarmAction(action)
		}
		return a
	}
	s.alarms = &Alarms{
		SlotsFreedByReconciler: alarm(AlarmSlotsFreedByReconcilerID, s.MetricSlotsFreedByReconciler(nil),
			awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD, 1,
			"Turnstile: the reconciler freed a slot, so a status-change event was lost or the cleanup did not run"),
		OldestWait: alarm(AlarmOldestWaitID, s.MetricOldestWait(nil),
			awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD, *oldest.ToMilliseconds(nil),
			"Turnstile: an execution has waited longer than "+*oldest.ToHumanString()+" for a slot"),
		AcquireTimeouts: alarm(AlarmAcquireTimeoutsID, s.MetricAcquireTimeouts(nil),
			awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD, 0,
			"Turnstile: an execution gave up waiting for a slot (its acquire timed out)"),
	}
	return *s.alarms
}

// AddDashboard implements Monitoring.
func (s *semaphore) AddDashboard(props *DashboardProps) awscloudwatch.Dashboard {
	var p DashboardProps
	if props != nil {
		p = *props
	}
	graph := func(title string, left []awscloudwatch.IMetric, right []awscloudwatch.IMetric) awscloudwatch.IWidget {
		gp := &awscloudwatch.GraphWidgetProps{Title: jsii.String(title), Left: &left, Width: jsii.Number(12)}
		if right != nil {
			gp.Right = &right
		}
		return awscloudwatch.NewGraphWidget(gp)
	}
	labelled := func(m awscloudwatch.Metric, label string, statistic *string) awscloudwatch.IMetric {
		return m.With(&awscloudwatch.MetricOptions{Label: jsii.String(label), Statistic: statistic})
	}
	sm := s.stateMachine
	rows := []*[]awscloudwatch.IWidget{
		{
			graph("Slots held and executions waiting", []awscloudwatch.IMetric{s.MetricSlotsHeld(nil), s.MetricExecutionsWaiting(nil)}, nil),
			graph("Waits (ms)", []awscloudwatch.IMetric{
				labelled(s.MetricWaitTime(nil), "wait p50", awscloudwatch.Stats_Percentile(jsii.Number(50))),
				labelled(s.MetricWaitTime(nil), "wait p99", awscloudwatch.Stats_Percentile(jsii.Number(99))),
				labelled(s.MetricOldestWait(nil), "oldest waiter", awscloudwatch.Stats_MAXIMUM()),
			}, nil),
		},
		{
			graph("Hand-offs", []awscloudwatch.IMetric{s.MetricSlotsHandedOn(nil)},
				[]awscloudwatch.IMetric{labelled(s.MetricHandOffLatency(nil), "latency p99 (ms)", awscloudwatch.Stats_Percentile(jsii.Number(99)))}),
			graph("Time-outs and freed slots", []awscloudwatch.IMetric{
				s.MetricAcquireTimeouts(nil), s.MetricSlotsFreedByCleanup(nil), s.MetricSlotsFreedByReconciler(nil),
			}, nil),
		},
		{
			graph("Executions", []awscloudwatch.IMetric{
				sm.MetricStarted(nil), sm.MetricSucceeded(nil), sm.MetricFailed(nil), sm.MetricTimedOut(nil), sm.MetricAborted(nil),
			}, nil),
		},
	}
	if s.alarms != nil {
		alarms := []interfacesawscloudwatch.IAlarmRef{s.alarms.SlotsFreedByReconciler, s.alarms.OldestWait, s.alarms.AcquireTimeouts}
		*rows[2] = append(*rows[2], awscloudwatch.NewAlarmStatusWidget(&awscloudwatch.AlarmStatusWidgetProps{
			Title: jsii.String("Alarms"), Alarms: &alarms, Width: jsii.Number(12),
		}))
	}
	return awscloudwatch.NewDashboard(s, jsii.String(DashboardID), &awscloudwatch.DashboardProps{
		DashboardName: p.DashboardName,
		Widgets:       &rows,
	})
}
