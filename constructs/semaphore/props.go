package semaphore

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Defaults of Props and the limits they are checked against.
const (
	// DefaultTimeout is the execution timeout: a stuck execution ends and its slot comes back
	// through the cleanup.
	DefaultTimeout = machines.DefaultTimeout
	// DefaultAcquireTimeout is the total time an execution waits for a slot before it fails
	// with Turnstile.AcquireTimeout.
	DefaultAcquireTimeout = machines.DefaultAcquireTimeout
	// DefaultWaitMin is the shortest pause between two acquire attempts.
	DefaultWaitMin = machines.DefaultWaitMin
	// DefaultWaitMax is the longest pause between two acquire attempts.
	DefaultWaitMax = machines.DefaultWaitMax
	// DefaultRemovalPolicy applies to the table and log group the construct creates. The lock
	// table holds nothing but the live holders of the state machine deleted with it, so it is
	// destroyed with the stack rather than left behind.
	DefaultRemovalPolicy = awscdk.RemovalPolicy_DESTROY
	// DefaultLogRetention is the retention of the log group the construct creates.
	DefaultLogRetention = awslogs.RetentionDays_ONE_MONTH
	// MaxLimit is the largest Limit (machines.MaxLimit).
	MaxLimit = machines.MaxLimit
	// PartitionKey is the lock table's partition key (a string attribute): the lock name. An
	// existing Table must use it, with SortKey.
	PartitionKey = lock.AttributeLockName
	// SortKey is the lock table's sort key (a string attribute): which item of the lock
	// (package lock's data model).
	SortKey = lock.AttributeEntry
	// CleanupID is the construct ID of the Cleanup created inside the semaphore.
	CleanupID = "Cleanup"
	// HandOffID is the construct ID of the hand-off function (Callback strategy).
	HandOffID = "HandOff"
	// HandOffPolicyID is the construct ID of the hand-off function's own policy (Callback
	// strategy): completing the machine's task tokens and describing its executions.
	HandOffPolicyID = "HandOffPolicy"
	// HandOffPackage is the import path of the hand-off function's main package, built from
	// wherever the app's go.mod finds Turnstile.
	HandOffPackage = "github.com/turnstile-sfn/turnstile/lambdas/handoff"
	// SubmitID is the construct ID of the submit function (Props.Submissions).
	SubmitID = "Submit"
	// SubmitPackage is the import path of the submit function's main package.
	SubmitPackage = "github.com/turnstile-sfn/turnstile/lambdas/submit"
	// DefaultCallbackTimeout is how long a parked waiter sleeps before it re-checks on its own.
	DefaultCallbackTimeout = machines.DefaultCallbackTimeout
	// MinPriority is the lowest priority of an execution (PriorityPath).
	MinPriority = machines.MinPriority
	// MaxPriority is the highest priority, admitted first.
	MaxPriority = machines.MaxPriority
	// DefaultPriority is the priority of an execution whose input has none at PriorityPath.
	DefaultPriority = machines.DefaultPriority
	// DefaultPriorityAgeing is the ageing step of priorities (PriorityAgeing).
	DefaultPriorityAgeing = machines.DefaultPriorityAgeing
	// MaxPriorityAgeing is the largest PriorityAgeing.
	MaxPriorityAgeing = machines.MaxPriorityAgeing
	// DefaultWeight is the weight of an execution whose input has none at WeightPath.
	DefaultWeight = machines.DefaultWeight
	// DefaultWaitStrategy is the wait strategy of a Semaphore whose props name none. Measured
	// on the original demo (README, "Waiting for a slot"), it hands a freed slot on within
	// a tenth of a second for a thirtieth of Poll's state transitions.
	DefaultWaitStrategy = machines.WaitCallback
)

// WaitStrategy is how an execution that finds every slot taken waits for one.
type WaitStrategy = machines.WaitStrategy

// The wait strategies.
const (
	// WaitPoll retries the acquire after jittered pauses (WaitMin to WaitMax) until
	// AcquireTimeout. It needs nothing but the lock table, but a freed slot waits for the next
	// poll and every poll is billed.
	WaitPoll = machines.WaitPoll
	// WaitCallback parks the execution in the lock's FIFO queue on a task token; a release
	// hands the slot to the oldest waiter and wakes it at once. It deploys a small hand-off
	// Lambda function (HandOffID).
	WaitCallback = machines.WaitCallback
)

// Rate limits how often executions enter the work, per lock name: at most PerSecond·W + Burst
// admitted in any window of W whole seconds, with the generic cell rate algorithm kept in the lock table (see
// machines.RateOptions). PerSecond is required; Burst defaults to machines.DefaultRateBurst (1)
// and Mode to RateDelay.
type Rate = machines.RateOptions

// RateMode is what the Rate gate does with an execution that comes before its permit.
type RateMode = machines.RateMode

// The Rate modes.
const (
	// RateDelay makes the execution wait in a Wait state, holding its slot, until the first
	// whole second at or after its permit's time (AWS waits to the second): one write per permit
	// while the rate is busy.
	RateDelay = machines.RateDelay
	// RateReject gives the slot back and fails the execution with Turnstile.RateLimited
	// (machines.ErrorRateLimited).
	RateReject = machines.RateReject
)

// LockSpec is one of the locks of a Semaphore that holds several (Props.Locks): exactly one of
// LockName and LockNamePath, and its Limit (Default: Props.Limit).
type LockSpec = machines.LockSpec

// Props configures a Semaphore. Exactly one of LockName, LockNamePath and Locks, and exactly one of
// Work, WorkFunction and WorkStateMachine, must be set.
type Props struct {
	// LockName is the fixed name of the lock that every execution shares.
	// Default: none; one of LockName, LockNamePath and Locks is required.
	LockName string
	// LockNamePath reads the lock name from the execution input, e.g. "$.environment", so that
	// executions for different keys never wait for each other (one lock item per key, each with
	// Limit slots). It must be a "$." reference path; an execution whose input has no non-empty
	// string there fails with Turnstile.InvalidLockName before touching the table.
	// Default: none; one of LockName, LockNamePath and Locks is required.
	LockNamePath string
	// Locks are several locks, each fixed (LockSpec.LockName) or read from the execution input
	// (LockSpec.LockNamePath), that an execution holds all at once while its work runs: "a job
	// needs the database and the region". They are taken one after the other in the order of
	// their names, sorted at run time, so that executions never wait for each other in a cycle;
	// a lock named twice is taken once, with the smaller limit; each waits up to
	// AcquireTimeout (Timeout must exceed AcquireTimeout times the number of locks). Every lock
	// is given back after the work, whether it succeeded or failed, and by the cleanup; a
	// redriven execution is stopped (Turnstile.RedriveWithoutSlot). Each lock waits with
	// WaitStrategy. It needs no Rate; the work's slot.Verify passes unless the execution was
	// redriven (package slot).
	// Default: none; one of LockName, LockNamePath and Locks is required.
	Locks []LockSpec
	// TotalLimit caps the executions that run the work at once across all the keys of
	// LockNamePath, each key still limited to Limit: "at most 3 per tenant and 12 in all". An
	// execution takes its key's slot, then its key's turn (a lock of one slot named
	// TotalLockName + "#" + key), then one of the TotalLimit slots of the lock TotalLockName,
	// waiting in each lock's FIFO queue, and gives its turn back as soon as it holds the total
	// slot. Each key then has at most one execution queued for the total, so keys with waiters
	// take turns, round robin, and a noisy key cannot starve the others. Each of the three
	// locks waits up to AcquireTimeout (Timeout must exceed three times AcquireTimeout). It
	// needs WaitStrategy WaitCallback and no Rate.
	// Default: 0, no total cap.
	TotalLimit int
	// TotalLockName is the name of the lock that counts the executions of all keys
	// (TotalLimit), and the prefix of the keys' turns. Semaphores that share a Table and each
	// have a TotalLimit need names of their own; an input whose key begins with it fails with
	// Turnstile.InvalidLockName.
	// Default: machines.DefaultTotalLockName ("#total").
	TotalLockName string
	// Limit is the number of executions that may run the work at once, 1 to MaxLimit (with
	// Locks, the limit of each LockSpec without one; 0 when every LockSpec has its own). With
	// the Callback strategy it is the semaphore's initial default: each lock copies the default
	// into the lock table on its first use, which holds the lock's limit from then on (change
	// it live with `turnstile limit`; redeploying with another Limit does not).
	// Required.
	Limit int

	// Work is a chain of the caller's own states, embedded as the Parallel branch that runs
	// while the slot is held; the permissions its tasks need are granted to the state machine.
	// Its state names must differ from the semaphore's (machines.StateNames).
	// Default: none; one of Work, WorkFunction and WorkStateMachine is required.
	Work awsstepfunctions.IChainable
	// WorkFunction is a Lambda function invoked with the execution input as its payload; its
	// result becomes the execution output. Lambda service errors are retried as AWS recommends.
	// Default: none; one of Work, WorkFunction and WorkStateMachine is required.
	WorkFunction awslambda.IFunction
	// WorkStateMachine is a state machine run as a child execution (startExecution.sync:2) with
	// the execution input; its output becomes the execution output.
	// Default: none; one of Work, WorkFunction and WorkStateMachine is required.
	WorkStateMachine awsstepfunctions.IStateMachine

	// Table is an existing lock table, with the string partition key PartitionKey and the
	// string sort key SortKey. With Submissions, turn its time to live on for the attribute
	// lock.AttributeTimeToLive, or the submissions' status items are never deleted.
	// Default: a new table: on-demand, point-in-time recovery on, AWS-managed encryption (and,
	// with Submissions, time to live on lock.AttributeTimeToLive).
	Table awsdynamodb.ITable
	// RemovalPolicy applies to the table and the log group the construct creates.
	// Default: DefaultRemovalPolicy (DESTROY).
	RemovalPolicy awscdk.RemovalPolicy

	// Timeout is the execution timeout (whole seconds, longer than AcquireTimeout).
	// Default: DefaultTimeout (1 hour).
	Timeout awscdk.Duration
	// AcquireTimeout bounds the total time an execution waits for a slot (whole seconds).
	// Default: DefaultAcquireTimeout (15 minutes).
	AcquireTimeout awscdk.Duration
	// WaitMin is the shortest pause between two acquire attempts; each pause is drawn at random
	// between WaitMin and WaitMax (whole seconds), so waiting executions spread out.
	// Default: DefaultWaitMin (1 second).
	WaitMin awscdk.Duration
	// WaitMax is the longest pause between two acquire attempts.
	// Default: DefaultWaitMax (5 seconds).
	WaitMax awscdk.Duration
	// WaitStrategy is how an execution waits for a slot: WaitCallback or WaitPoll.
	// Default: DefaultWaitStrategy (WaitCallback).
	WaitStrategy WaitStrategy
	// CallbackTimeout is how long a parked waiter (WaitCallback) sleeps before it re-checks
	// the lock on its own: the most a lost wake-up can cost (whole seconds).
	// Default: DefaultCallbackTimeout (5 minutes), or AcquireTimeout if shorter.
	CallbackTimeout awscdk.Duration
	// Rate limits how often executions enter the work, per lock name, after they took their
	// slot: with a Limit too, both hold. Its item lives in the lock table, keyed by the lock
	// name with the prefix "rate#" (a lock name may then not begin with it).
	// Default: none, no rate limit.
	Rate *Rate
	// PriorityPath reads each execution's priority from its input, e.g. "$.priority": an
	// integer from MinPriority (0) to MaxPriority (9). Waiters are admitted highest priority
	// first, first in first out within a priority, and PriorityAgeing bounds how far they are
	// overtaken. An input without a value there has DefaultPriority (0); any other value fails
	// the execution with Turnstile.InvalidPriority before it waits. WaitCallback only: Poll
	// has no queue to order.
	// Default: none, first in first out.
	PriorityPath string
	// PriorityAgeing is how many later arrivals age a waiter by one priority: a waiter of
	// priority p is overtaken by at most (q-p)·PriorityAgeing executions of each priority q
	// above it that queued after it, so none starves. With PriorityPath only.
	// Default: DefaultPriorityAgeing (100).
	PriorityAgeing int
	// WeightPath reads each execution's weight from its input, e.g. "$.slots": how many of
	// the Limit slots it takes, a whole number from 1 to Limit. The line is served first in,
	// first out: a waiter that does not fit blocks lighter ones behind it until enough slots
	// are free, so no heavy execution starves. An input without a value there weighs
	// DefaultWeight (1); a value out of range or not a number fails the execution with
	// Turnstile.InvalidWeight, a fractional one with Turnstile.InvalidHandOffRequest, and a
	// weight above the lock's live limit (lowered with `turnstile limit`) with
	// Turnstile.WeightAboveLimit. WaitCallback only.
	// Default: none, every execution takes one slot.
	WeightPath string

	// Logging sends every execution event (level ALL, with execution data) to LogGroup.
	// Default: true.
	Logging *bool
	// LogGroup receives the execution logs when Logging is on.
	// Default: a new log group kept DefaultLogRetention (one month).
	LogGroup awslogs.ILogGroup
	// Tracing turns on AWS X-Ray tracing of the executions.
	// Default: true.
	Tracing *bool

	// Submissions deploys the submit function (SubmitID; Semaphore.SubmitFunction): producers
	// hand it execution inputs, invoking it directly, from an EventBridge rule or through an
	// SQS event source mapping (package lambdas/submit/submit), and each input waits in its
	// lock's queue, in line with the parked executions, until a slot is free; then it starts,
	// holding the slot (lock.Client.Submit). With PriorityPath or WeightPath, each input waits
	// with the priority and weight it gives, as the machine's park would. With Locks or a
	// TotalLimit, each input waits for the first lock its execution takes (the first of its
	// locks by name; with a TotalLimit, its key's lock) and starts holding it; the execution
	// then waits for its other locks as any execution does. It needs WaitCallback.
	// Default: false.
	Submissions *bool
	// SubmissionTTL is how long a submission may wait in the queue before it expires (whole
	// seconds). Default: lock.DefaultSubmissionTTL (24 hours).
	SubmissionTTL awscdk.Duration

	// Cleanup adds a Cleanup construct (ID CleanupID, inside the semaphore) that frees the
	// slots of executions that end without releasing them, runs the reconciler and guards
	// redrives. Turn it off only to build your own (see package cleanup).
	// Default: true.
	Cleanup *bool
	// ReconcileSchedule is when the cleanup's reconciler runs.
	// Default: cleanup.DefaultReconcileMinutes (every 5 minutes).
	ReconcileSchedule awsevents.Schedule
}
