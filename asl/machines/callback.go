package machines

import (
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
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

// Error names the hand-off function fails with: those of package lock.
const (
	// ErrorQueueBusy: the lock kept changing under the hand-off function's conditional
	// writes, or DynamoDB answered with a transient error; a retry is safe.
	ErrorQueueBusy = lock.ErrorBusy
	// ErrorInvalidHandOffRequest: the hand-off function was invoked with a payload it cannot
	// serve (an unknown action, a missing lock name, execution, ticket or token).
	ErrorInvalidHandOffRequest = lock.ErrorInvalidRequest
	// ErrorDrained: an operator drained the lock (lock.Client.Drain) and failed the parked
	// task; no retrier or catcher of Wait In Queue matches it, so the execution fails with it
	// and the operator's cause, holding no slot.
	ErrorDrained = lock.ErrorDrained
)

// waitInQueue parks the execution under its ticket until it holds a slot (the hand-off
// function admits it at once when a slot is free and nobody older waits). When no wake-up comes
// within CallbackTimeout the task times out and is retried: the retry parks again
// ($$.State.RetryCount above 0), keeping the execution's place, or taking a slot handed to it
// meanwhile. After AcquireTimeout in all, it leaves the queue.
func (b builder) waitInQueue() *asl.Task {
	period := seconds(b.o.CallbackTimeout)
	parks := (seconds(b.o.AcquireTimeout) + period - 1) / period
	retry := append([]*asl.Retrier{{
		ErrorEquals:     []string{asl.ErrorTimeout},
		IntervalSeconds: asl.Int(1),
		MaxAttempts:     asl.Int(max(parks-1, 0)),
		BackoffRate:     asl.Float(1),
	}}, handOffRetry()...)
	payload := b.handOffPayload(HandOffActionPark)
	payload["taskToken.$"] = "$$.Task.Token"
	payload["retryCount.$"] = "$$.State.RetryCount"
	return &asl.Task{
		Transition:     asl.Next(StateRunWork),
		Resource:       ResourceLambdaInvokeWaitForTaskToken,
		TimeoutSeconds: asl.Int(period),
		Parameters:     map[string]any{"FunctionName": b.o.HandOffFunctionArn, "Payload": payload},
		ResultPath:     asl.NullPath(),
		Retry:          retry,
		Catch: []*asl.Catcher{
			{ErrorEquals: []string{asl.ErrorTimeout}, Next: StateLeaveQueue, ResultPath: asl.NullPath()},
			{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")},
		},
	}
}

// leaveQueue takes the execution out of the queue (and passes on a slot it was handed in the
// meantime) before it fails with ErrorAcquireTimeout. If it cannot, the slot's hand-off skips
// it when it finds its execution ended.
func (b builder) leaveQueue() *asl.Task {
	return &asl.Task{
		Transition: asl.Next(StateAcquireTimedOut),
		Resource:   ResourceLambdaInvoke,
		Parameters: map[string]any{"FunctionName": b.o.HandOffFunctionArn, "Payload": b.handOffPayload(HandOffActionLeave)},
		ResultPath: asl.NullPath(),
		Retry:      handOffRetry(),
		Catch:      []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: StateAcquireTimedOut, ResultPath: asl.NullPath()}},
	}
}

// handOff gives the slot to the oldest waiter, or back to the lock, then goes to next. After a
// failed work (afterFailure) any error goes on to re-raise the work's error: the cleanup frees
// the slot.
func (b builder) handOff(next string, afterFailure bool) *asl.Task {
	catch := []*asl.Catcher{{ErrorEquals: []string{ErrorLockTable}, Next: StateLockTableError, ResultPath: asl.P("$.lockTableError")}}
	if afterFailure {
		catch = []*asl.Catcher{{ErrorEquals: []string{asl.ErrorAll}, Next: next, ResultPath: asl.NullPath()}}
	}
	payload := b.handOffPayload(HandOffActionRelease)
	delete(payload, "ticket.$")
	delete(payload, "priority.$")
	delete(payload, "priorityAgeing")
	delete(payload, "weight.$")
	return &asl.Task{
		Transition: asl.Next(next),
		Resource:   ResourceLambdaInvoke,
		Parameters: map[string]any{"FunctionName": b.o.HandOffFunctionArn, "Payload": payload},
		ResultPath: asl.NullPath(),
		Retry:      handOffRetry(),
		Catch:      catch,
	}
}

// handOffPayload is the hand-off function's payload for action, for this execution.
func (b builder) handOffPayload(action string) map[string]any {
	payload := map[string]any{
		"action":         action,
		"lockName.$":     "$.lockName",
		"limit":          b.o.Limit,
		"executionArn.$": "$$.Execution.Id",
		"ticket.$":       "$.ticket.n",
	}
	if b.o.PriorityPath != "" {
		payload["priority.$"] = "$.priority.level"
		payload["priorityAgeing"] = b.o.PriorityAgeing
	}
	if b.o.WeightPath != "" {
		payload["weight.$"] = "$.weight.units"
	}
	return payload
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
