package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Defaults of Config.
const (
	DefaultExecutions       = 100
	DefaultStartConcurrency = 10
	DefaultPollInterval     = 500 * time.Millisecond
	DefaultSettleTimeout    = 60 * time.Second
	// DefaultWorkState is the work step of Turnstile's semaphore machine.
	DefaultWorkState = machines.StateRunWork
)

// DefaultReleaseStates are the states of Turnstile's semaphore machine that give a slot back:
// after the work succeeded, and after it failed.
var DefaultReleaseStates = []string{machines.StateReleaseSlot, machines.StateReleaseAfterFailure}

// ErrInvalidConfig is wrapped by every error Config.validate returns.
var ErrInvalidConfig = errors.New("testrunner: invalid configuration")

// Config says what to run and where to look.
type Config struct {
	// StateMachineArn is the semaphore-protected machine to start. Required.
	StateMachineArn string `json:"stateMachineArn"`
	// Executions is how many executions to start. Default: DefaultExecutions.
	Executions int `json:"executions,omitempty"`
	// StartConcurrency bounds the StartExecution calls in flight. Default: DefaultStartConcurrency.
	StartConcurrency int `json:"startConcurrency,omitempty"`
	// InputTemplate is the JSON input of every execution; "{{index}}" in it is replaced by the
	// execution's index (0-based). Default: {"index": <index>}.
	InputTemplate string `json:"inputTemplate,omitempty"`
	// LockNamePath and Keys spread the executions over several locks of a semaphore whose lock
	// name comes from the input (semaphore.Props.LockNamePath): execution i gets Keys[i mod
	// len(Keys)] at LockNamePath (a dotted path such as "$.tenant"; objects on the way are
	// created), and the report gives the most inside the work per key. Default: none, every
	// execution gets the input as it is.
	LockNamePath string   `json:"lockNamePath,omitempty"`
	Keys         []string `json:"keys,omitempty"`
	// MoreLockNamePaths are further dotted paths at which execution i gets the same key, for a
	// semaphore that reads several lock names from the input (semaphore.Props.Locks). Needs
	// LockNamePath. Default: none.
	MoreLockNamePaths []string `json:"moreLockNamePaths,omitempty"`
	// PriorityPath and HighPriority give the last HighPriority executions the highest priority
	// (lock.MaxPriority) at PriorityPath (a dotted path, as LockNamePath) of a semaphore with
	// priorities (semaphore.Props.PriorityPath); the others have none there, the default
	// priority. Default: none.
	PriorityPath string `json:"priorityPath,omitempty"`
	HighPriority int    `json:"highPriority,omitempty"`
	// WeightPath and Weights give execution i the weight Weights[i mod len(Weights)] at
	// WeightPath (a dotted path, as LockNamePath) of a semaphore with weighted permits
	// (semaphore.Props.WeightPath). Default: none.
	WeightPath string `json:"weightPath,omitempty"`
	Weights    []int  `json:"weights,omitempty"`
	// NamePrefix starts every execution's name. Default: "turnstile-<unix seconds>".
	NamePrefix string `json:"namePrefix,omitempty"`
	// WorkState is the name of the state that runs the protected work. Default: DefaultWorkState.
	WorkState string `json:"workState,omitempty"`
	// ReleaseStates are the names of the states that give the slot back after the work.
	// Default: DefaultReleaseStates.
	ReleaseStates []string `json:"releaseStates,omitempty"`
	// LockTable is the lock table to inspect after the run; empty skips the leak check.
	LockTable string `json:"lockTable,omitempty"`
	// PollInterval is the delay between two checks of the executions' status.
	// Default: DefaultPollInterval.
	PollInterval Duration `json:"pollInterval,omitempty"`
	// SettleTimeout is how long to wait, after the last execution ended, for cleanup to give
	// back the slots of failed executions. Default: DefaultSettleTimeout.
	SettleTimeout Duration `json:"settleTimeout,omitempty"`
	// CapacityWait is how long to wait, once the run settled, for CloudWatch to publish the lock
	// table's consumed capacity, when the Runner has a CloudWatch client and LockTable is set.
	// Default: DefaultCapacityWait.
	CapacityWait Duration `json:"capacityWait,omitempty"`
}

// Duration is a time.Duration that reads and writes as a Go duration string ("1.5s") in JSON.
type Duration time.Duration

// MarshalJSON renders the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string such as "500ms".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"500ms\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// withDefaults returns c with every zero field set to its default, or an error naming the first
// invalid field.
func (c Config) withDefaults(now time.Time) (Config, error) {
	if c.StateMachineArn == "" || !strings.HasPrefix(c.StateMachineArn, "arn:") {
		return c, fmt.Errorf("%w: stateMachineArn must be a state machine ARN, got %q", ErrInvalidConfig, c.StateMachineArn)
	}
	if c.Executions < 0 || c.StartConcurrency < 0 || c.PollInterval < 0 || c.SettleTimeout < 0 || c.CapacityWait < 0 {
		return c, fmt.Errorf("%w: executions, startConcurrency, pollInterval, settleTimeout and capacityWait must not be negative", ErrInvalidConfig)
	}
	if c.CapacityWait == 0 {
		c.CapacityWait = Duration(DefaultCapacityWait)
	}
	if c.Executions == 0 {
		c.Executions = DefaultExecutions
	}
	if c.StartConcurrency == 0 {
		c.StartConcurrency = DefaultStartConcurrency
	}
	if c.InputTemplate == "" {
		c.InputTemplate = `{"index": {{index}}}`
	}
	if !json.Valid([]byte(strings.ReplaceAll(c.InputTemplate, "{{index}}", "0"))) {
		return c, fmt.Errorf("%w: inputTemplate is not JSON once {{index}} is replaced: %s", ErrInvalidConfig, c.InputTemplate)
	}
	if (c.LockNamePath == "") != (len(c.Keys) == 0) {
		return c, fmt.Errorf("%w: lockNamePath and keys go together, got lockNamePath %q and %d keys", ErrInvalidConfig, c.LockNamePath, len(c.Keys))
	}
	if len(c.MoreLockNamePaths) > 0 && c.LockNamePath == "" {
		return c, fmt.Errorf("%w: moreLockNamePaths need lockNamePath and keys", ErrInvalidConfig)
	}
	if c.LockNamePath != "" {
		for _, p := range append([]string{c.LockNamePath}, c.MoreLockNamePaths...) {
			if !machines.IsLockNamePath(p) || strings.ContainsAny(p, "[]'\"") {
				return c, fmt.Errorf("%w: lockNamePath must be a dotted path such as \"$.tenant\", got %q", ErrInvalidConfig, p)
			}
		}
		if _, err := c.input(0); err != nil {
			return c, err
		}
	}
	if (c.PriorityPath == "") != (c.HighPriority == 0) {
		return c, fmt.Errorf("%w: priorityPath and highPriority go together, got priorityPath %q and highPriority %d", ErrInvalidConfig, c.PriorityPath, c.HighPriority)
	}
	if c.PriorityPath != "" {
		if !machines.IsLockNamePath(c.PriorityPath) || strings.ContainsAny(c.PriorityPath, "[]'\"") {
			return c, fmt.Errorf("%w: priorityPath must be a dotted path such as \"$.priority\", got %q", ErrInvalidConfig, c.PriorityPath)
		}
		if c.HighPriority < 0 || c.HighPriority > c.Executions {
			return c, fmt.Errorf("%w: highPriority must be 0 to the executions (%d), got %d", ErrInvalidConfig, c.Executions, c.HighPriority)
		}
		if _, err := c.input(c.Executions - 1); err != nil {
			return c, err
		}
	}
	if (c.WeightPath == "") != (len(c.Weights) == 0) {
		return c, fmt.Errorf("%w: weightPath and weights go together, got weightPath %q and %d weights", ErrInvalidConfig, c.WeightPath, len(c.Weights))
	}
	if c.WeightPath != "" {
		if !machines.IsLockNamePath(c.WeightPath) || strings.ContainsAny(c.WeightPath, "[]'\"") {
			return c, fmt.Errorf("%w: weightPath must be a dotted path such as \"$.slots\", got %q", ErrInvalidConfig, c.WeightPath)
		}
		if _, err := c.input(0); err != nil {
			return c, err
		}
	}
	if c.NamePrefix == "" {
		c.NamePrefix = fmt.Sprintf("turnstile-%d", now.Unix())
	}
	if c.WorkState == "" {
		c.WorkState = DefaultWorkState
	}
	if len(c.ReleaseStates) == 0 {
		c.ReleaseStates = DefaultReleaseStates
	}
	if c.PollInterval == 0 {
		c.PollInterval = Duration(DefaultPollInterval)
	}
	if c.SettleTimeout == 0 {
		c.SettleTimeout = Duration(DefaultSettleTimeout)
	}
	return c, nil
}

// input returns the input of execution i.
func (c Config) input(i int) (string, error) {
	in := strings.ReplaceAll(c.InputTemplate, "{{index}}", fmt.Sprint(i))
	high := c.PriorityPath != "" && i >= c.Executions-c.HighPriority
	if len(c.Keys) == 0 && !high && len(c.Weights) == 0 {
		return in, nil
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(in), &doc); err != nil || doc == nil {
		return "", fmt.Errorf("%w: with keys, priorities or weights, inputTemplate must be a JSON object, got %s", ErrInvalidConfig, c.InputTemplate)
	}
	if len(c.Keys) > 0 {
		for _, p := range append([]string{c.LockNamePath}, c.MoreLockNamePaths...) {
			if err := set(doc, p, c.key(i)); err != nil {
				return "", err
			}
		}
	}
	if high {
		if err := set(doc, c.PriorityPath, lock.MaxPriority); err != nil {
			return "", err
		}
	}
	if len(c.Weights) > 0 {
		if err := set(doc, c.WeightPath, c.Weights[i%len(c.Weights)]); err != nil {
			return "", err
		}
	}
	out, err := json.Marshal(doc)
	return string(out), err
}

// set puts value at the dotted path of doc, creating the objects on the way.
func set(doc map[string]any, path string, value any) error {
	node := doc
	names := strings.Split(strings.TrimPrefix(path, "$."), ".")
	for _, name := range names[:len(names)-1] {
		next, ok := node[name].(map[string]any)
		if !ok {
			if _, taken := node[name]; taken {
				return fmt.Errorf("%w: %s in the input is not an object, so %s cannot go below it", ErrInvalidConfig, name, path)
			}
			next = map[string]any{}
			node[name] = next
		}
		node = next
	}
	node[names[len(names)-1]] = value
	return nil
}

// key returns the lock key of execution i, or "" without keys.
func (c Config) key(i int) string {
	if len(c.Keys) == 0 {
		return ""
	}
	return c.Keys[i%len(c.Keys)]
}
