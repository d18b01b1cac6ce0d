package reconcile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// DefaultMaxHolders bounds the holders checked (one DescribeExecution each) in one run.
const DefaultMaxHolders = 500

// Config is what one reconciler sweeps.
type Config struct {
	// TableName is the lock table. Required.
	TableName string
	// StateMachineArn is the semaphore machine: only holders that are its executions are
	// checked. Required.
	StateMachineArn string
	// MaxHolders bounds the holders checked per run. Default: DefaultMaxHolders.
	MaxHolders int
	// Limit is the semaphore's limit: the dead holder of a lock where executions wait hands
	// its slot to the oldest within it. Required.
	Limit int
}

// ConfigFromEnv reads a Config from the environment variables the Cleanup construct sets
// (machines.EnvReconciler*).
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(name string) string { v, _ := lookup(name); return v }
	c := Config{TableName: get(machines.EnvReconcilerLockTable), StateMachineArn: get(machines.EnvReconcilerStateMachineArn)}
	if raw := get(machines.EnvReconcilerLimit); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return Config{}, &ConfigError{Field: machines.EnvReconcilerLimit, Value: raw, Problem: "must be an integer"}
		}
		c.Limit = n
	}
	if raw := get(machines.EnvReconcilerMaxHolders); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil {
			return Config{}, &ConfigError{Field: machines.EnvReconcilerMaxHolders, Value: raw, Problem: "must be an integer"}
		}
		c.MaxHolders = n
	}
	return c.withDefaults()
}

// withDefaults validates c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.TableName == "":
		return c, &ConfigError{Field: "TableName", Value: "", Problem: "is required"}
	case !strings.Contains(c.StateMachineArn, ":stateMachine:"):
		return c, &ConfigError{Field: "StateMachineArn", Value: c.StateMachineArn, Problem: "must be a state machine ARN"}
	case c.Limit < 1:
		return c, &ConfigError{Field: "Limit", Value: strconv.Itoa(c.Limit), Problem: "must be >= 1 (the semaphore's limit)"}
	case c.MaxHolders < 0:
		return c, &ConfigError{Field: "MaxHolders", Value: strconv.Itoa(c.MaxHolders), Problem: "must be >= 0"}
	}
	if c.MaxHolders == 0 {
		c.MaxHolders = DefaultMaxHolders
	}
	return c, nil
}

// executionPrefix is the ARN prefix of the machine's executions:
// arn:…:stateMachine:Name → arn:…:execution:Name:.
func (c Config) executionPrefix() string {
	return strings.Replace(c.StateMachineArn, ":stateMachine:", ":execution:", 1) + ":"
}

// ConfigError names a configuration value that is missing or wrong. It unwraps to ErrConfig.
type ConfigError struct {
	// Field is the setting, e.g. "TableName".
	Field string
	// Value is the offending value.
	Value string
	// Problem says what is wrong.
	Problem string
}

// Error renders the problem as "reconcile: TableName is required, got \"\"".
func (e *ConfigError) Error() string {
	return fmt.Sprintf("reconcile: %s %s, got %q", e.Field, e.Problem, e.Value)
}

// Unwrap returns ErrConfig.
func (e *ConfigError) Unwrap() error { return ErrConfig }
