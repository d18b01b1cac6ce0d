package machines

import (
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
)

// WaitStrategy is how an execution that finds every slot taken waits for one.
type WaitStrategy string

const (
	// WaitPoll retries the acquire after jittered pauses between WaitMin and WaitMax until
	// AcquireTimeout (docs/architecture.md, "Waiting: Poll"). It needs nothing but the lock
	// table.
	WaitPoll WaitStrategy = "Poll"
	// WaitCallback parks the execution in the lock's FIFO queue on a task token; whoever frees
	// a slot hands it to the oldest waiter and wakes it. A parked waiter re-checks on its own
	// every CallbackTimeout, so a lost wake-up costs at most that long. It needs the hand-off
	// function (SubstitutionHandOffFunctionArn).
	WaitCallback WaitStrategy = "Callback"
)

// SubstitutionHandOffFunctionArn stands for the ARN of the hand-off function (Callback
// strategy).
const SubstitutionHandOffFunctionArn = "HandOffFunctionArn"

// DefaultCallbackTimeout is how long a parked waiter sleeps before it re-checks the lock on its
// own: the most a lost wake-up can cost. Each re-check is billed (a retry, a Lambda invocation
// and a DynamoDB request or two), so it is long next to typical waits.
const DefaultCallbackTimeout = 5 * time.Minute

// ResourceLambdaInvokeWaitForTaskToken invokes a Lambda function with a task token and waits
// for the token's outcome.
const ResourceLambdaInvokeWaitForTaskToken = ResourceLambdaInvoke + ".waitForTaskToken"

// The actions of the hand-off function, named in its payload's "action".
const (
	// HandOffActionPark enqueues the execution (or admits it at once when it may take a slot)
	// and completes its task token when it holds a slot.
	HandOffActionPark = "park"
	// HandOffActionRelease gives the execution's slot to the oldest waiter (or back to the
	// lock when nobody waits) and removes the execution from the queue.
	HandOffActionRelease = "release"
)

// Error names the hand-off function fails with.
const (
	// ErrorQueueBusy: the lock item kept changing under the hand-off function's conditional
	// writes, or DynamoDB answered with a transient error; a retry is safe.
	ErrorQueueBusy = "Turnstile.QueueBusy"
	// ErrorQueueFull: the lock item has no room for another waiter (DynamoDB's 400 KB item
	// limit; each waiter costs its ARN twice and its task token). The execution parks again
	// after a jittered pause, like Poll, and fails with this error when the pauses run out.
	ErrorQueueFull = "Turnstile.QueueFull"
	// ErrorInvalidHandOffRequest: the hand-off function was invoked with a payload it cannot
	// serve (an unknown action, a missing lock name, execution or token).
	ErrorInvalidHandOffRequest = "Turnstile.InvalidHandOffRequest"
)

// waitInQueue parks the execution in the lock's queue until it holds a slot. When no wake-up
// comes within CallbackTimeout the task times out and is retried: the retry parks again (the
// hand-off function keeps the execution's place, takes a slot handed to it meanwhile, or
// admits it if a slot is free). After AcquireTimeout in all, it leaves the queue.
func (b builder) waitInQueue() *asl.Task {
	period := seconds(b.o.CallbackTimeout)
	parks := (seconds(b.o.AcquireTimeout) + period - 1) / period
	retry := append([]*asl.Retrier{
		{
			ErrorEquals:     []string{asl.ErrorTimeout},
			IntervalSeconds: asl.Int(1),
			MaxAttempts:     asl.Int(max(parks-1, 0)),
			BackoffRate:     asl.Float(1),
		},
		{
			ErrorEquals:     []string{ErrorQueueFull},
			IntervalSeconds: asl.Int(5),
			MaxAttempts:     asl.Int(max(seconds(b.o.AcquireTimeout)/30, 1)),
			BackoffRate:     asl.Float(1.5),
			MaxDelaySeconds: asl.Int(60),
			JitterStrategy:  asl.JitterFull,
		},
	}, handOffRetry()...)
	return &asl.Task{
		Transition:     asl.Next(StateRunWork),
		Resource:       ResourceLambdaInvokeWaitForTaskToken,
		TimeoutSeconds: asl.Int(period),
		Parameters: map[string]any{
			"FunctionName": b.o.HandOffFunctionArn,
			"Payload": map[string]any{
				"action":         HandOffActionPark,
				"lockName.$":     "$.lockName",
				"limit":          b.o.Limit,
				"executionArn.$": "$$.Execution.Id",
				"taskToken.$":    "$$.Task.Token",
			},
		},
		ResultPath: asl.NullPath(),
		Retry:      retry,
		Catch: []*asl.Catcher{
			{ErrorEquals: []string{asl.ErrorTimeout}, Next: StateLeaveQueue, ResultPath: asl.NullPath()},
			{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")},
		},
	}
}

// leaveQueue removes the execution from the queue (and passes on a slot it was handed in the
// meantime) before it fails with ErrorAcquireTimeout. If it cannot, the cleanup does it after
// the execution failed.
func (b builder) leaveQueue() *asl.Task {
	return &asl.Task{
		Transition: asl.Next(StateAcquireTimedOut),
		Resource:   ResourceLambdaInvoke,
		Parameters: b.handOffParameters(),
		ResultPath: asl.NullPath(),
		Retry:      handOffRetry(),
		Catch:      []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: StateAcquireTimedOut, ResultPath: asl.NullPath()}},
	}
}

// handOff gives the slot to the oldest waiter, then goes to next. After a failed work
// (afterFailure) any error goes on to re-raise the work's error: the cleanup frees the slot.
func (b builder) handOff(next string, afterFailure bool) *asl.Task {
	catch := []*asl.Catcher{{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")}}
	if afterFailure {
		catch = []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: next, ResultPath: asl.NullPath()}}
	}
	return &asl.Task{
		Transition: asl.Next(next),
		Resource:   ResourceLambdaInvoke,
		Parameters: b.handOffParameters(),
		ResultPath: asl.NullPath(),
		Retry:      handOffRetry(),
		Catch:      catch,
	}
}

// handOffParameters invoke the hand-off function's release for this execution.
func (b builder) handOffParameters() map[string]any {
	return map[string]any{
		"FunctionName": b.o.HandOffFunctionArn,
		"Payload": map[string]any{
			"action":         HandOffActionRelease,
			"lockName.$":     "$.lockName",
			"limit":          b.o.Limit,
			"executionArn.$": "$$.Execution.Id",
		},
	}
}

// handOffRetry retries the Lambda service's transient errors, Lambda.Unknown (the function timed
// out or ran out of memory) and ErrorQueueBusy with jittered backoff: park and release are
// idempotent, so a second attempt after one that half-ran is safe.
func handOffRetry() []*asl.Retrier {
	return []*asl.Retrier{{
		ErrorEquals:     append(append([]string(nil), lambdaServiceErrors...), "Lambda.TooManyRequestsException", "Lambda.Unknown", ErrorQueueBusy),
		IntervalSeconds: asl.Int(1),
		MaxAttempts:     asl.Int(6),
		BackoffRate:     asl.Float(2),
		MaxDelaySeconds: asl.Int(10),
		JitterStrategy:  asl.JitterFull,
	}}
}

// EnvHandOffLockTable is the environment variable that names the lock table to the hand-off
// function (lambdas/handoff), set by the Semaphore construct.
const EnvHandOffLockTable = EnvReconcilerLockTable
