package semaphore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// newMonitoredStack synthesizes a Callback semaphore with its alarms (notifying a topic, the
// OldestWait threshold at 10 minutes) and its dashboard.
func newMonitoredStack(t *testing.T) fixture {
	t.Helper()
	var f fixture
	noPanic(t, "a monitored semaphore", func() {
		app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
		f.stack = awscdk.NewStack(app, jsii.String("Monitored"), nil)
		f.sem = semaphore.New(f.stack, jsii.String("Semaphore"), &semaphore.Props{LockName: "L", Limit: 2, WorkFunction: echoFunction(f.stack, "Work")})
		topic := awssns.NewTopic(f.stack, jsii.String("Topic"), nil)
		f.sem.AddAlarms(&semaphore.AlarmProps{
			Actions:    []awscloudwatch.IAlarmAction{awscloudwatchactions.NewSnsAction(topic)},
			OldestWait: awscdk.Duration_Minutes(jsii.Number(10)),
		})
		f.sem.AddDashboard(nil)
		f.template = assertions.Template_FromStack(f.stack, nil)
		f.json = *f.template.ToJSON()
	})
	if f.json == nil {
		t.FailNow()
	}
	return f
}

// TestAlarmsWatchTheSemaphoresMetrics checks the three alarms in the template: metric,
// namespace, the Semaphore dimension, statistic, period, threshold, operator, missing data and
// the caller's action.
func TestAlarmsWatchTheSemaphoresMetrics(t *testing.T) {
	f := newMonitoredStack(t)
	topicID, _ := only(t, f, "AWS::SNS::Topic")
	want := map[string]struct {
		statistic, operator string
		threshold           float64
	}{
		metrics.SlotsFreedByReconciler: {"Sum", "GreaterThanOrEqualToThreshold", 1},
		metrics.OldestWait:             {"Maximum", "GreaterThanThreshold", 600_000},
		metrics.AcquireTimeouts:        {"Sum", "GreaterThanThreshold", 0},
	}
	seen := map[string]bool{}
	for id, alarm := range resources(f, "AWS::CloudWatch::Alarm") {
		p := props(alarm)
		name, _ := p["MetricName"].(string)
		w, ok := want[name]
		if !ok {
			continue // the cleanup's dead-letter alarm
		}
		seen[name] = true
		dims := compact(p["Dimensions"])
		if p["Namespace"] != metrics.Namespace || dims != `[{"Name":"Semaphore","Value":"Monitored/Semaphore"}]` {
			t.Errorf("%s: namespace %v, dimensions %s", id, p["Namespace"], dims)
		}
		if p["Statistic"] != w.statistic || p["ComparisonOperator"] != w.operator || p["Threshold"] != w.threshold ||
			p["Period"] != float64(300) || p["EvaluationPeriods"] != float64(1) || p["TreatMissingData"] != "notBreaching" {
			t.Errorf("%s: %s", id, compact(p))
		}
		if got := compact(p["AlarmActions"]); got != `[{"Ref":"`+topicID+`"}]` {
			t.Errorf("%s: actions %s, want the topic %s", id, got, topicID)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("alarms on %v, want one on each of %v", seen, want)
	}
}

// TestDashboardShowsEveryMetric checks that the dashboard graphs each of Turnstile's metrics
// of this semaphore, the state machine's executions and the alarms.
func TestDashboardShowsEveryMetric(t *testing.T) {
	f := newMonitoredStack(t)
	_, dashboard := only(t, f, "AWS::CloudWatch::Dashboard")
	body := compact(props(dashboard)["DashboardBody"])
	for _, name := range []string{
		metrics.SlotsHeld, metrics.ExecutionsWaiting, metrics.OldestWait, metrics.WaitTime, metrics.HandOffLatency,
		metrics.SlotsHandedOn, metrics.AcquireTimeouts, metrics.SlotsFreedByCleanup, metrics.SlotsFreedByReconciler,
		"ExecutionsStarted", "ExecutionsFailed", "ExecutionsTimedOut",
	} {
		if !strings.Contains(body, `\"`+name+`\"`) {
			t.Errorf("the dashboard does not show %s", name)
		}
	}
	if !strings.Contains(body, `\"Turnstile\",\"`) || !strings.Contains(body, `\"Semaphore\",\"Monitored/Semaphore\"`) {
		t.Errorf("the dashboard's metrics are not the semaphore's: %.400s", body)
	}
	if !strings.Contains(body, `\"alarms\"`) {
		t.Error("the dashboard has no alarm status widget")
	}
}

// TestFunctionsKnowTheSemaphoresName: the hand-off function and the reconciler write their
// metrics under the dimension value the Metric* methods read.
func TestFunctionsKnowTheSemaphoresName(t *testing.T) {
	f := newMonitoredStack(t)
	n := 0
	for id, fn := range resources(f, "AWS::Lambda::Function") {
		env, _ := props(fn)["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		if v, ok := vars[metrics.EnvSemaphore]; ok {
			n++
			if v != f.sem.MetricsName() || v != "Monitored/Semaphore" {
				t.Errorf("%s: %s = %v, want %s", id, metrics.EnvSemaphore, v, f.sem.MetricsName())
			}
		}
	}
	if n != 2 {
		t.Errorf("%d functions have %s, want the hand-off function and the reconciler", n, metrics.EnvSemaphore)
	}
}

// TestMetricOfOneLock: a DimensionsMap in the options adds to the Semaphore dimension, and the
// other options override the defaults.
func TestMetricOfOneLock(t *testing.T) {
	stack, fn := newTreeStack("OneLock")
	sem := semaphore.New(stack, jsii.String("Gate"), &semaphore.Props{LockNamePath: "$.env", Limit: 1, WorkFunction: fn})
	noPanic(t, "a lock's metric", func() {
		m := sem.MetricWaitTime(&awscloudwatch.MetricOptions{
			DimensionsMap: &map[string]*string{metrics.DimensionLockName: jsii.String("prod")},
			Statistic:     jsii.String("p99"),
		})
		dims := map[string]string{}
		for k, v := range *m.Dimensions() {
			dims[k] = fmt.Sprint(v)
		}
		if compact(dims) != `{"LockName":"prod","Semaphore":"OneLock/Gate"}` || *m.Statistic() != "p99" || *m.MetricName() != metrics.WaitTime {
			t.Errorf("metric %s %s %v", *m.MetricName(), *m.Statistic(), dims)
		}
		if d := sem.MetricSlotsHeld(nil); *d.Statistic() != "Maximum" || *d.Period().ToSeconds(nil) != 300 {
			t.Errorf("default SlotsHeld: %s over %v s", *d.Statistic(), *d.Period().ToSeconds(nil))
		}
	})
}
