package demo_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"

	"github.com/turnstile-sfn/turnstile/cmd/app/demo"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// TestConfigFromContext reads the configuration from context given as on the command line
// (strings) and in cdk.json (numbers), and rejects bad values naming the key.
func TestConfigFromContext(t *testing.T) {
	defaults := demo.Config{StackName: "TurnstileDemo", LockName: "MySemaphore", Limit: 5, WorkDuration: 15 * time.Second, FailureRate: 0.1, WaitStrategy: demo.DefaultWaitStrategy}
	tests := []struct {
		name    string
		context map[string]any
		want    demo.Config
		wantKey string // the key a *ContextError must name; "" for success
	}{
		{"defaults", nil, defaults, ""},
		{"from -c", map[string]any{"stackName": "Gate", "prefix": "CC", "lockName": "Deploys", "limit": "2", "reservedConcurrency": "2", "workDuration": "1.5s", "failureRate": "0.25"},
			demo.Config{StackName: "Gate", Prefix: "CC", LockName: "Deploys", Limit: 2, ReservedConcurrency: 2, WorkDuration: 1500 * time.Millisecond, FailureRate: 0.25, WaitStrategy: demo.DefaultWaitStrategy}, ""},
		{"callback", map[string]any{"waitStrategy": "Callback"},
			demo.Config{StackName: "TurnstileDemo", LockName: "MySemaphore", Limit: 5, WorkDuration: 15 * time.Second, FailureRate: 0.1, WaitStrategy: semaphore.WaitCallback}, ""},
		{"unknown wait strategy", map[string]any{"waitStrategy": "Spin"}, demo.Config{}, "waitStrategy"},
		{"from cdk.json", map[string]any{"limit": 7.0, "reservedConcurrency": 7.0, "failureRate": 0.0},
			demo.Config{StackName: "TurnstileDemo", LockName: "MySemaphore", Limit: 7, ReservedConcurrency: 7, WorkDuration: 15 * time.Second, WaitStrategy: demo.DefaultWaitStrategy}, ""},
		{"work duration not a duration", map[string]any{"workDuration": "15"}, demo.Config{}, "workDuration"},
		{"negative work duration", map[string]any{"workDuration": "-1s"}, demo.Config{}, "workDuration"},
		{"failure rate above 1", map[string]any{"failureRate": "1.5"}, demo.Config{}, "failureRate"},
		{"failure rate not a number", map[string]any{"failureRate": "often"}, demo.Config{}, "failureRate"},
		{"limit not a number", map[string]any{"limit": "five"}, demo.Config{}, "limit"},
		{"fractional limit", map[string]any{"limit": 2.5}, demo.Config{}, "limit"},
		{"zero limit", map[string]any{"limit": "0"}, demo.Config{}, "limit"},
		{"limit above MaxLimit", map[string]any{"limit": "1000001"}, demo.Config{}, "limit"},
		{"empty lock name", map[string]any{"lockName": ""}, demo.Config{}, "lockName"},
		{"lock name not a string", map[string]any{"lockName": 3.0}, demo.Config{}, "lockName"},
		{"lock name path", map[string]any{"lockNamePath": "$.environment"},
			demo.Config{StackName: "TurnstileDemo", LockName: "MySemaphore", LockNamePath: "$.environment", Limit: 5, WorkDuration: 15 * time.Second, FailureRate: 0.1, WaitStrategy: demo.DefaultWaitStrategy}, ""},
		{"lock name path without $.", map[string]any{"lockNamePath": "environment"}, demo.Config{}, "lockNamePath"},
		{"prefix with a dash", map[string]any{"prefix": "CC-"}, demo.Config{}, "prefix"},
		{"stack name with a space", map[string]any{"stackName": "My Demo"}, demo.Config{}, "stackName"},
		{"negative reserved concurrency", map[string]any{"reservedConcurrency": "-1"}, demo.Config{}, "reservedConcurrency"},
		{"rate", map[string]any{"rate": "0.5/s,burst=3,mode=reject"},
			demo.Config{StackName: "TurnstileDemo", LockName: "MySemaphore", Limit: 5, WorkDuration: 15 * time.Second, FailureRate: 0.1, WaitStrategy: demo.DefaultWaitStrategy,
				Rate: &semaphore.Rate{PerSecond: 0.5, Burst: 3, Mode: semaphore.RateReject}}, ""},
		{"rate without a unit", map[string]any{"rate": "2"},
			demo.Config{StackName: "TurnstileDemo", LockName: "MySemaphore", Limit: 5, WorkDuration: 15 * time.Second, FailureRate: 0.1, WaitStrategy: demo.DefaultWaitStrategy,
				Rate: &semaphore.Rate{PerSecond: 2}}, ""},
		{"rate not a rate", map[string]any{"rate": "fast"}, demo.Config{}, "rate"},
		{"rate above a permit a millisecond", map[string]any{"rate": "5000/s"}, demo.Config{}, "rate"},
		{"rate with an unknown key", map[string]any{"rate": "2/s,window=10s"}, demo.Config{}, "rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := map[string]any{}
			for k, v := range tt.context {
				ctx[k] = v
			}
			app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
			got, err := demo.ConfigFromContext(app.Node())
			if tt.wantKey == "" {
				if err != nil {
					t.Fatalf("ConfigFromContext: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got %+v, want %+v", got, tt.want)
				}
				return
			}
			var ce *demo.ContextError
			if !errors.As(err, &ce) || !errors.Is(err, demo.ErrInvalidContext) {
				t.Fatalf("error %v, want a *ContextError wrapping ErrInvalidContext", err)
			}
			if ce.Key != tt.wantKey {
				t.Errorf("error names %q, want %q: %v", ce.Key, tt.wantKey, err)
			}
		})
	}
}
