package cleanup_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/metrics"
)

// TestMetrics: the reconciler writes its metrics under the cleanup's scope by default (the
// semaphore that creates it), and the Metric* methods read them there, or of one lock.
func TestMetrics(t *testing.T) {
	var reconcilerEnv any
	for _, fn := range resources("AWS::Lambda::Function") {
		env, _ := fn["Properties"].(map[string]any)["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		if v, ok := vars[metrics.EnvSemaphore]; ok {
			reconcilerEnv = v
		}
	}
	if reconcilerEnv != "CleanupFixture" {
		t.Errorf("the reconciler's %s = %v, want the cleanup's scope, CleanupFixture", metrics.EnvSemaphore, reconcilerEnv)
	}
	for name, m := range map[string]awscloudwatch.Metric{
		metrics.SlotsFreedByReconciler: fixture.cleanup.MetricSlotsFreedByReconciler(nil),
		metrics.SlotsFreedByCleanup: fixture.cleanup.MetricSlotsFreedByCleanup(&awscloudwatch.MetricOptions{
			DimensionsMap: &map[string]*string{metrics.DimensionLockName: jsii.String("L")},
		}),
	} {
		dims := map[string]string{}
		for k, v := range *m.Dimensions() {
			dims[k] = fmt.Sprint(v)
		}
		want := map[string]string{metrics.DimensionSemaphore: "CleanupFixture"}
		if name == metrics.SlotsFreedByCleanup {
			want[metrics.DimensionLockName] = "L"
		}
		if *m.MetricName() != name || *m.Namespace() != metrics.Namespace || *m.Statistic() != "Sum" || fmt.Sprint(dims) != fmt.Sprint(want) {
			t.Errorf("%s: %s/%s %s %v, want %v", name, *m.Namespace(), *m.MetricName(), *m.Statistic(), dims, want)
		}
	}
}
