package work_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// env is a fake environment for ConfigFromEnv.
type env map[string]string

func (e env) lookup(name string) (string, bool) {
	value, ok := e[name]
	return value, ok
}

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     env
		want    work.Config
		setting string // non-empty: an *InvalidConfig naming this setting is wanted
		cause   error  // when non-nil, the wanted cause
	}{
		{name: "defaults", env: env{}, want: work.Config{Duration: 15 * time.Second, FailureRate: 0.1}},
		{name: "both set", env: env{work.EnvDuration: "150ms", work.EnvFailureRate: "0.25"},
			want: work.Config{Duration: 150 * time.Millisecond, FailureRate: 0.25}},
		{name: "never fail", env: env{work.EnvFailureRate: "0"}, want: work.Config{Duration: 15 * time.Second}},
		{name: "always fail", env: env{work.EnvFailureRate: "1"}, want: work.Config{Duration: 15 * time.Second, FailureRate: 1}},
		{name: "no work", env: env{work.EnvDuration: "0s"}, want: work.Config{FailureRate: 0.1}},
		{name: "duration not a duration", env: env{work.EnvDuration: "15"}, setting: work.EnvDuration},
		{name: "negative duration", env: env{work.EnvDuration: "-1s"}, setting: "Duration", cause: work.ErrNegativeDuration},
		{name: "rate not a number", env: env{work.EnvFailureRate: "ten percent"}, setting: work.EnvFailureRate, cause: strconv.ErrSyntax},
		{name: "rate as percent", env: env{work.EnvFailureRate: "10"}, setting: "FailureRate", cause: work.ErrFailureRateOutOfRange},
		{name: "negative rate", env: env{work.EnvFailureRate: "-0.1"}, setting: "FailureRate", cause: work.ErrFailureRateOutOfRange},
		{name: "NaN rate", env: env{work.EnvFailureRate: "NaN"}, setting: "FailureRate", cause: work.ErrFailureRateOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := work.ConfigFromEnv(tt.env.lookup)
			if tt.setting == "" {
				if err != nil {
					t.Fatalf("ConfigFromEnv() error = %v, want nil", err)
				}
				if got != tt.want {
					t.Errorf("ConfigFromEnv() = %+v, want %+v", got, tt.want)
				}
				return
			}
			var invalid *work.InvalidConfig
			if !errors.As(err, &invalid) {
				t.Fatalf("ConfigFromEnv() error = %v, want *InvalidConfig", err)
			}
			if invalid.Setting != tt.setting {
				t.Errorf("InvalidConfig.Setting = %q, want %q", invalid.Setting, tt.setting)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("ConfigFromEnv() error = %v, want it to wrap %v", err, tt.cause)
			}
		})
	}
}

func TestConfigString(t *testing.T) {
	tests := []struct {
		cfg  work.Config
		want string
	}{
		{cfg: work.DefaultConfig(), want: "15s of work, 10% failures"},
		{cfg: work.Config{Duration: 150 * time.Millisecond, FailureRate: 0.025}, want: "150ms of work, 2.5% failures"},
	}
	for _, tt := range tests {
		if got := tt.cfg.String(); got != tt.want {
			t.Errorf("Config.String() = %q, want %q", got, tt.want)
		}
	}
}
