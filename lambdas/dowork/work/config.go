package work

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Defaults of the demo work, as in the original AWS demo.
const (
	// DefaultDuration is how long one invocation works when WORK_DURATION is not set.
	DefaultDuration = 15 * time.Second
	// DefaultFailureRate is the fraction of invocations that fail when WORK_FAILURE_RATE is not set.
	DefaultFailureRate = 0.1
)

// Environment variables read by ConfigFromEnv.
const (
	// EnvDuration names the variable holding the work duration, a Go duration such as "15s".
	EnvDuration = "WORK_DURATION"
	// EnvFailureRate names the variable holding the failure rate, a fraction from 0 to 1.
	EnvFailureRate = "WORK_FAILURE_RATE"
)

// Config is what one invocation of the demo work does.
type Config struct {
	// Duration is how long an invocation works. Must not be negative.
	Duration time.Duration
	// FailureRate is the probability, from 0 to 1, that an invocation fails with *WorkFailed.
	FailureRate float64
}

// DefaultConfig returns the configuration of the original demo: 15 s of work, 10 % failures.
func DefaultConfig() Config {
	return Config{Duration: DefaultDuration, FailureRate: DefaultFailureRate}
}

// LookupFunc reads one environment variable; os.LookupEnv is one.
type LookupFunc func(name string) (value string, ok bool)

// ConfigFromEnv reads the configuration from EnvDuration and EnvFailureRate, using the defaults
// for unset variables. A value that does not parse or is out of range gives an *InvalidConfig.
func ConfigFromEnv(lookup LookupFunc) (Config, error) {
	cfg := DefaultConfig()
	if value, ok := lookup(EnvDuration); ok {
		d, err := time.ParseDuration(value)
		if err != nil {
			return Config{}, &InvalidConfig{Setting: EnvDuration, Value: value, Err: err}
		}
		cfg.Duration = d
	}
	if value, ok := lookup(EnvFailureRate); ok {
		rate, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return Config{}, &InvalidConfig{Setting: EnvFailureRate, Value: value, Err: err}
		}
		cfg.FailureRate = rate
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Validate reports an *InvalidConfig when Duration is negative or FailureRate is not a number
// from 0 to 1.
func (c Config) Validate() error {
	if c.Duration < 0 {
		return &InvalidConfig{Setting: "Duration", Value: c.Duration.String(), Err: ErrNegativeDuration}
	}
	if math.IsNaN(c.FailureRate) || c.FailureRate < 0 || c.FailureRate > 1 {
		return &InvalidConfig{
			Setting: "FailureRate",
			Value:   strconv.FormatFloat(c.FailureRate, 'g', -1, 64),
			Err:     ErrFailureRateOutOfRange,
		}
	}
	return nil
}

// String describes the configuration, e.g. "15s of work, 10% failures".
func (c Config) String() string {
	return fmt.Sprintf("%s of work, %s%% failures", c.Duration, strconv.FormatFloat(c.FailureRate*100, 'f', -1, 64))
}
