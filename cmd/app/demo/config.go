package demo

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// Context keys the demo reads (cdk synth -c key=value, or cdk.json's "context").
const (
	// ContextStackName names the stack.
	ContextStackName = "stackName"
	// ContextPrefix prefixes the IDs of the demo's constructs.
	ContextPrefix = "prefix"
	// ContextLockName is the semaphore's lock name.
	ContextLockName = "lockName"
	// ContextLockNamePath reads the lock name from each input at a "$." path
	// (semaphore.Props.LockNamePath), in place of ContextLockName.
	ContextLockNamePath = "lockNamePath"
	// ContextLimit is the semaphore's limit.
	ContextLimit = "limit"
	// ContextReservedConcurrency sets the dowork function's reserved concurrency.
	ContextReservedConcurrency = "reservedConcurrency"
	// ContextWorkDuration is how long each dowork invocation works, as a Go duration ("15s").
	ContextWorkDuration = "workDuration"
	// ContextFailureRate is the fraction of dowork invocations that fail, from 0 to 1.
	ContextFailureRate = "failureRate"
	// ContextWaitStrategy is how executions wait for a slot: "Poll" or "Callback".
	ContextWaitStrategy = "waitStrategy"
	// ContextPriorityAgeing, above 0, gives the semaphore priorities read from DemoPriorityPath
	// with this ageing step (semaphore.Props.PriorityAgeing); Callback only.
	ContextPriorityAgeing = "priorityAgeing"
	// ContextWeighted, true, gives the semaphore weighted permits read from DemoWeightPath.
	ContextWeighted = "weighted"
	// ContextRate limits how often executions enter the work, as ParseRate reads it ("2/s").
	ContextRate = "rate"
)

// Defaults of Config: the original AWS demo's lock and limit.
const (
	// DefaultStackName is the stack's name.
	DefaultStackName = "TurnstileDemo"
	// DefaultLockName is the semaphore's lock name.
	DefaultLockName = "MySemaphore"
	// DefaultLimit is the number of dowork invocations that may run at once.
	DefaultLimit = 5
)

// ErrInvalidContext is wrapped by every *ContextError.
var ErrInvalidContext = errors.New("invalid context value")

// ContextError names the context key whose value is wrong.
type ContextError struct {
	// Key is the context key, e.g. "limit".
	Key string
	// Value is the value found, as given.
	Value any
	// Problem says what is wrong.
	Problem string
}

// Error renders the problem as `context limit must be an integer from 1 to 2600, got "five"`.
func (e *ContextError) Error() string {
	return fmt.Sprintf("context %s %s, got %#v", e.Key, e.Problem, e.Value)
}

// Unwrap returns ErrInvalidContext.
func (e *ContextError) Unwrap() error { return ErrInvalidContext }

// Config is what the demo stack is built from.
type Config struct {
	// StackName is the stack's name. Default: DefaultStackName.
	StackName string
	// Prefix is prepended to the IDs of the demo's constructs (letters and digits), so that the
	// names CloudFormation generates for the table, the state machine and the function start
	// with it, like the "CC-" prefix of the AWS sample. Default: none.
	Prefix string
	// LockName is the semaphore's lock name. Default: DefaultLockName.
	LockName string
	// Limit is the semaphore's limit. Default: DefaultLimit.
	Limit int
	// WorkDuration is how long each dowork invocation works. Default: work.DefaultDuration.
	WorkDuration time.Duration
	// FailureRate is the fraction of dowork invocations that fail. Default:
	// work.DefaultFailureRate.
	FailureRate float64
	// ReservedConcurrency, when positive, reserves that many concurrent executions for the
	// dowork function and caps it there: the Lambda-native second line of defence under the
	// semaphore (set it to Limit). Default: 0, no reservation.
	ReservedConcurrency int
	// WaitStrategy is how executions wait for a slot. Default: DefaultWaitStrategy.
	WaitStrategy semaphore.WaitStrategy
	// Rate limits how often executions enter the work (semaphore.Props.Rate). Default: none.
	Rate *semaphore.Rate
	// Locks makes the semaphore hold several locks (semaphore.Props.Locks) in place of
	// LockName, each with Limit slots unless it names its own. Default: none.
	Locks []semaphore.LockSpec
	// LockNamePath reads the lock name from the input (semaphore.Props.LockNamePath) in place
	// of LockName. Default: none.
	LockNamePath string
	// TotalLimit caps the executions of all keys of LockNamePath together
	// (semaphore.Props.TotalLimit). Default: none.
	TotalLimit int
	// PriorityAgeing, above 0, gives the semaphore priorities: PriorityPath DemoPriorityPath,
	// with this PriorityAgeing. Default: 0, first in first out.
	PriorityAgeing int
	// Weighted gives the semaphore weighted permits: WeightPath DemoWeightPath (Callback
	// only). Default: false, one slot each.
	Weighted bool
	// Submissions deploys the semaphore's submit function (semaphore.Props.Submissions;
	// Callback only). Default: false.
	Submissions bool
}

// DemoWeightPath is where the demo's executions give their weight, when Weighted.
const DemoWeightPath = "$.slots"

// DemoPriorityPath is where the demo's executions give their priority, with PriorityAgeing.
const DemoPriorityPath = "$.priority"

// DefaultWaitStrategy is the demo's wait strategy: the construct's default.
const DefaultWaitStrategy = semaphore.DefaultWaitStrategy

var (
	stackNamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{0,127}$`)
	prefixPattern    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,31}$`)
)

// DefaultConfig returns the demo's defaults: the original AWS demo's lock, limit and work.
func DefaultConfig() Config {
	return Config{StackName: DefaultStackName, LockName: DefaultLockName, Limit: DefaultLimit,
		WorkDuration: work.DefaultDuration, FailureRate: work.DefaultFailureRate, WaitStrategy: DefaultWaitStrategy}
}

// ConfigFromContext reads the demo's configuration from the context of node (an App's node),
// applying the defaults, and checks it.
func ConfigFromContext(node constructs.Node) (Config, error) {
	get := func(key string) any { return node.TryGetContext(jsii.String(key)) }
	cfg := DefaultConfig()
	var err error
	if v := get(ContextStackName); v != nil {
		cfg.StackName, err = text(ContextStackName, v)
	}
	if v := get(ContextPrefix); v != nil && err == nil {
		cfg.Prefix, err = text(ContextPrefix, v)
	}
	if v := get(ContextLockName); v != nil && err == nil {
		cfg.LockName, err = text(ContextLockName, v)
	}
	if v := get(ContextLockNamePath); v != nil && err == nil {
		cfg.LockNamePath, err = text(ContextLockNamePath, v)
	}
	if v := get(ContextLimit); v != nil && err == nil {
		cfg.Limit, err = integer(ContextLimit, v)
	}
	if v := get(ContextReservedConcurrency); v != nil && err == nil {
		cfg.ReservedConcurrency, err = integer(ContextReservedConcurrency, v)
	}
	if v := get(ContextWorkDuration); v != nil && err == nil {
		cfg.WorkDuration, err = duration(ContextWorkDuration, v)
	}
	if v := get(ContextFailureRate); v != nil && err == nil {
		cfg.FailureRate, err = number(ContextFailureRate, v)
	}
	if v := get(ContextWaitStrategy); v != nil && err == nil {
		var s string
		s, err = text(ContextWaitStrategy, v)
		cfg.WaitStrategy = semaphore.WaitStrategy(s)
	}
	if v := get(ContextPriorityAgeing); v != nil && err == nil {
		cfg.PriorityAgeing, err = integer(ContextPriorityAgeing, v)
	}
	if v := get(ContextWeighted); v != nil && err == nil {
		b, ok := v.(bool)
		if !ok {
			err = &ContextError{Key: ContextWeighted, Value: v, Problem: "must be true or false"}
		}
		cfg.Weighted = b
	}
	if v := get(ContextRate); v != nil && err == nil {
		var s string
		if s, err = text(ContextRate, v); err == nil {
			if cfg.Rate, err = ParseRate(s); err != nil {
				err = &ContextError{Key: ContextRate, Value: s, Problem: "must be R[/s][,burst=B][,mode=delay|reject], e.g. 2/s"}
			}
		}
	}
	if err != nil {
		return Config{}, err
	}
	return cfg, cfg.Validate()
}

// Validate checks every field, naming the context key of the first wrong one.
func (c Config) Validate() error {
	switch {
	case !stackNamePattern.MatchString(c.StackName):
		return &ContextError{Key: ContextStackName, Value: c.StackName, Problem: "must be a CloudFormation stack name (a letter, then letters, digits and hyphens)"}
	case c.Prefix != "" && !prefixPattern.MatchString(c.Prefix):
		return &ContextError{Key: ContextPrefix, Value: c.Prefix, Problem: "must be a letter followed by at most 31 letters and digits"}
	case c.LockName == "":
		return &ContextError{Key: ContextLockName, Value: c.LockName, Problem: "must not be empty"}
	case c.LockNamePath != "" && !machines.IsLockNamePath(c.LockNamePath):
		return &ContextError{Key: ContextLockNamePath, Value: c.LockNamePath, Problem: `must be a "$." reference path such as "$.environment"`}
	case c.Limit < 1 || c.Limit > semaphore.MaxLimit:
		return &ContextError{Key: ContextLimit, Value: c.Limit, Problem: fmt.Sprintf("must be an integer from 1 to %d", semaphore.MaxLimit)}
	case c.WaitStrategy != semaphore.WaitPoll && c.WaitStrategy != semaphore.WaitCallback:
		return &ContextError{Key: ContextWaitStrategy, Value: string(c.WaitStrategy), Problem: `must be "Poll" or "Callback"`}
	case c.Rate != nil && c.Rate.Validate() != nil:
		var oe *machines.OptionError
		if errors.As(c.Rate.Validate(), &oe) {
			return &ContextError{Key: ContextRate, Value: oe.Value, Problem: "has a " + strings.TrimPrefix(oe.Field, "Rate.") + " that " + oe.Problem}
		}
		return &ContextError{Key: ContextRate, Value: *c.Rate, Problem: c.Rate.Validate().Error()}
	case c.PriorityAgeing < 0 || c.PriorityAgeing > semaphore.MaxPriorityAgeing:
		return &ContextError{Key: ContextPriorityAgeing, Value: c.PriorityAgeing, Problem: fmt.Sprintf("must be an integer from 1 to %d (0 or absent: no priorities)", semaphore.MaxPriorityAgeing)}
	case c.PriorityAgeing > 0 && c.WaitStrategy != semaphore.WaitCallback:
		return &ContextError{Key: ContextPriorityAgeing, Value: c.PriorityAgeing, Problem: `needs waitStrategy "Callback": Poll has no queue to order`}
	case c.Weighted && c.WaitStrategy != semaphore.WaitCallback:
		return &ContextError{Key: ContextWeighted, Value: c.Weighted, Problem: `needs waitStrategy "Callback": weighted permits wait in the queue`}
	case c.ReservedConcurrency < 0:
		return &ContextError{Key: ContextReservedConcurrency, Value: c.ReservedConcurrency, Problem: "must be a positive integer (0 or absent: no reservation)"}
	}
	if err := c.work().Validate(); err != nil {
		if errors.Is(err, work.ErrFailureRateOutOfRange) {
			return &ContextError{Key: ContextFailureRate, Value: c.FailureRate, Problem: "must be a fraction from 0 to 1 (0.1 is one time in ten)"}
		}
		return &ContextError{Key: ContextWorkDuration, Value: c.WorkDuration, Problem: "must not be negative"}
	}
	return nil
}

// work is the dowork configuration the stack gives its function.
func (c Config) work() work.Config {
	return work.Config{Duration: c.WorkDuration, FailureRate: c.FailureRate}
}

// duration reads a Go duration context value ("15s").
func duration(key string, v any) (time.Duration, error) {
	if s, ok := v.(string); ok {
		if d, err := time.ParseDuration(s); err == nil {
			return d, nil
		}
	}
	return 0, &ContextError{Key: key, Value: v, Problem: "must be a Go duration such as 15s"}
}

// number reads a numeric context value, given as a number or a string.
func number(key string, v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f, nil
		}
	}
	return 0, &ContextError{Key: key, Value: v, Problem: "must be a number"}
}

// text reads a string context value.
func text(key string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", &ContextError{Key: key, Value: v, Problem: "must be a string"}
	}
	return s, nil
}

// integer reads an integer context value, given as a number (cdk.json) or a string (-c).
func integer(key string, v any) (int, error) {
	switch x := v.(type) {
	case float64:
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			return n, nil
		}
	}
	return 0, &ContextError{Key: key, Value: v, Problem: "must be an integer"}
}
