package semaphore

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// invalid panics with a message naming the prop, as awscdk constructs do for bad props.
func invalid(format string, args ...any) {
	panic("semaphore: " + fmt.Sprintf(format, args...))
}

// checkWorkKinds panics unless exactly one kind of work is set.
func checkWorkKinds(p *Props) {
	var set []string
	if p.Work != nil {
		set = append(set, "Work")
	}
	if p.WorkFunction != nil {
		set = append(set, "WorkFunction")
	}
	if p.WorkStateMachine != nil {
		set = append(set, "WorkStateMachine")
	}
	switch len(set) {
	case 0:
		invalid("Props.Work, Props.WorkFunction or Props.WorkStateMachine is required, got none")
	case 1:
	default:
		invalid("Props.Work, Props.WorkFunction and Props.WorkStateMachine are mutually exclusive, got %s", strings.Join(set, " and "))
	}
}

// checkSubmissions panics when Props.Submissions is on without the Callback strategy (whose
// releases start the submissions), or with a SubmissionTTL under a second. With several locks
// or a total cap, a submission waits for the first lock its execution takes.
func checkSubmissions(p *Props, opts machines.SemaphoreOptions) {
	if p.Submissions == nil || !*p.Submissions {
		if p.SubmissionTTL != nil {
			invalid("Props.SubmissionTTL needs Props.Submissions")
		}
		return
	}
	if opts.WaitStrategy != machines.WaitCallback {
		invalid("Props.Submissions needs WaitStrategy %s (its releases start the submissions), got %s", machines.WaitCallback, opts.WaitStrategy)
	}
	duration("SubmissionTTL", p.SubmissionTTL) // panics unless at least a second
}

// options converts the props, bar the work, to machine options; unset durations stay zero and
// take the machines' defaults, which are this package's defaults.
func options(p *Props) machines.SemaphoreOptions {
	return machines.SemaphoreOptions{
		LockName:        p.LockName,
		LockNamePath:    p.LockNamePath,
		Locks:           p.Locks,
		TotalLimit:      p.TotalLimit,
		TotalLockName:   p.TotalLockName,
		Limit:           p.Limit,
		AcquireTimeout:  duration("AcquireTimeout", p.AcquireTimeout),
		WaitMin:         duration("WaitMin", p.WaitMin),
		WaitMax:         duration("WaitMax", p.WaitMax),
		Timeout:         duration("Timeout", p.Timeout),
		WaitStrategy:    cmp.Or(p.WaitStrategy, DefaultWaitStrategy),
		CallbackTimeout: duration("CallbackTimeout", p.CallbackTimeout),
		Rate:            p.Rate,
		PriorityPath:    p.PriorityPath,
		PriorityAgeing:  p.PriorityAgeing,
		WeightPath:      p.WeightPath,
	}
}

// duration converts a CDK duration prop to a time.Duration: zero when unset, and a panic for a
// set duration of zero, which would otherwise silently take the default.
func duration(field string, d awscdk.Duration) time.Duration {
	if d == nil {
		return 0
	}
	ms := *d.ToMilliseconds(&awscdk.TimeConversionOptions{Integral: jsii.Bool(false)})
	if ms <= 0 {
		invalid("Props.%s must be at least 1s, got %s", field, *d.ToHumanString())
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// panicOnOptionError turns an error of machines.Semaphore into the construct's panic, renaming
// SemaphoreOptions.X to Props.X (the fields share their names).
func panicOnOptionError(err error) {
	var oe *machines.OptionError
	if errors.As(err, &oe) {
		invalid("Props.%s", strings.TrimPrefix(err.Error(), "SemaphoreOptions."))
	}
	invalid("%v", err)
}
