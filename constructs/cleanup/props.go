package cleanup

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// Defaults of Props.
const (
	// DefaultReconcileMinutes is the reconciler's period: a slot leaked by a lost event comes
	// back within it.
	DefaultReconcileMinutes = 5
	// DefaultRetryAttempts is how many times EventBridge retries starting the cleanup machine
	// before the event goes to the dead-letter queue.
	DefaultRetryAttempts = 185
	// DefaultMaxEventAgeHours is the oldest event EventBridge still tries to deliver.
	DefaultMaxEventAgeHours = 24
	// DefaultDeadLetterAlarmThreshold is the dead-letter queue depth that raises the alarm.
	DefaultDeadLetterAlarmThreshold = 1
	// ReconcilerPackage is the import path of the reconciler Lambda's main package, built from
	// wherever the app's go.mod finds Turnstile.
	ReconcilerPackage = "github.com/turnstile-sfn/turnstile/lambdas/reconciler"
)

// Props configures a Cleanup. StateMachine, Table, one of LockName and LockNamePath, and Limit
// are the protected semaphore's; the rest have defaults.
type Props struct {
	// StateMachine is the semaphore's state machine. Required.
	StateMachine awsstepfunctions.IStateMachine
	// Table is the semaphore's lock table. Required.
	Table awsdynamodb.ITable
	// LockName is the semaphore's fixed lock name.
	// Default: none; one of LockName and LockNamePath is required.
	LockName string
	// LockNamePath is the semaphore's LockNamePath: the cleanup reads the lock name from the
	// dead execution's input. Default: none; one of LockName and LockNamePath is required.
	LockNamePath string
	// Locks are the semaphore's Locks, in place of LockName and LockNamePath: the cleanup frees
	// every lock the dead execution's input names, the redrive guard stops every redriven
	// execution, and the reconciler frees each dead holder of any lock. Default: none, a single
	// lock.
	Locks []machines.LockSpec
	// TotalLimit and TotalLockName are the semaphore's (with LockNamePath): the cleanup frees
	// the key's lock and the total lock, the redrive guard stops every redriven execution.
	// HandOffFunction is required with them. Default: 0 and machines.DefaultTotalLockName.
	TotalLimit    int
	TotalLockName string
	// Limit is the semaphore's limit, below which the redrive guard re-acquires. Required.
	Limit int
	// HandOffFunction is the semaphore's hand-off function when it waits with the Callback
	// strategy: the cleanup machine releases through it (the slot goes to the oldest waiter,
	// a dead waiter leaves the queue), and the reconciler may complete waiters' task tokens.
	// Default: none, the semaphore polls.
	HandOffFunction awslambda.IFunction

	// ReconcileSchedule is when the reconciler runs.
	// Default: every DefaultReconcileMinutes minutes (rate(5 minutes)).
	ReconcileSchedule awsevents.Schedule
	// Reconciler turns the scheduled reconciler on. Default: true.
	Reconciler *bool
	// RedriveGuard turns the redrive guard on. Default: true.
	RedriveGuard *bool
	// MetricsName is the value of the Semaphore dimension of the metrics the reconciler writes
	// and the Metric* methods read (package metrics); the semaphore's MetricsName.
	// Default: the path of the cleanup's scope (the Semaphore construct that creates it).
	MetricsName string
	// RemovalPolicy applies to the dead-letter queue and the log groups created.
	// Default: awscdk.RemovalPolicy_DESTROY.
	RemovalPolicy awscdk.RemovalPolicy
}
