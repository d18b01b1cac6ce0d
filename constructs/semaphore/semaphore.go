package semaphore

import (
	"maps"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/constructs/cleanup"
	"github.com/turnstile-sfn/turnstile/internal/nag"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Semaphore is a distributed counting semaphore in front of some work: a DynamoDB lock table
// and a Standard state machine that acquires a slot, runs the work and releases the slot.
type Semaphore interface {
	constructs.Construct
	Monitoring
	// Table returns the lock table (the given Props.Table, or the one created).
	Table() awsdynamodb.ITable
	// StateMachine returns the acquire → run → release state machine.
	StateMachine() awsstepfunctions.StateMachine
	// LogGroup returns the log group of the executions, or nil when logging is off.
	LogGroup() awslogs.ILogGroup
	// LockName returns the fixed lock name, or "" when the name is read from LockNamePath or
	// the semaphore holds several locks (Props.Locks).
	LockName() string
	// LockNamePath returns the path of the lock name in the execution input, or "".
	LockNamePath() string
	// Limit returns the number of slots per lock (with Props.Locks, that of each LockSpec
	// without its own; with Props.TotalLimit, per key).
	Limit() int
	// Cleanup returns the Cleanup construct, or nil when Props.Cleanup is false.
	Cleanup() cleanup.Cleanup
	// HandOffFunction returns the hand-off function, or nil unless the strategy is WaitCallback.
	HandOffFunction() awslambda.Function
	// SubmitFunction returns the submit function, or nil unless Props.Submissions is on.
	SubmitFunction() awslambda.Function
	// GrantStartExecution lets grantee start executions of the state machine: what a producer
	// of work needs.
	GrantStartExecution(grantee awsiam.IGrantable) awsiam.Grant
	// GrantSlotCheck lets grantee run slot.Verify, the work's check that its execution holds a
	// slot: dynamodb:GetItem, dynamodb:UpdateItem and dynamodb:PutItem on the lock table (and the use of its key,
	// for a given table encrypted with one). New grants it to Props.WorkFunction (unless it is
	// an imported function without a role), so that a forgotten grant cannot first show on a
	// redrive.
	GrantSlotCheck(grantee awsiam.IGrantable) awsiam.Grant
	// Definition returns the state machine's definition as deployed, with the
	// DefinitionSubstitutions placeholders (machines.Placeholder) in place of the table name
	// and the work's ARN.
	Definition() *asl.StateMachine
}

// NagSuppressions are the cdk-nag findings the semaphore accepts on its own resources, with
// their reasons (its cleanup records cleanup.NagSuppressions): the state machine role's logging
// and tracing actions, which take no resource, and the hand-off function's grant on the
// machine's executions. New records them, so that an app running cdk-nag's AwsSolutions checks
// gets no error from Turnstile's resources.
var NagSuppressions = []nag.Suppression{nag.LoggingAndTracing, handOffSuppression}

type semaphore struct {
	constructs.Construct
	props        Props
	table        awsdynamodb.ITable
	stateMachine awsstepfunctions.StateMachine
	logGroup     awslogs.ILogGroup
	definition   *asl.StateMachine
	cleanup      cleanup.Cleanup
	handOff      awslambda.Function
	submit       awslambda.Function
	alarms       *Alarms // AddAlarms's, for the dashboard
}

// New creates a Semaphore. It panics, naming the prop and its value, when the props are
// invalid (see Props).
func New(scope constructs.Construct, id *string, props *Props) Semaphore {
	if props == nil {
		invalid("props are required (Props.Limit, a lock name and the work)")
	}
	p := *props
	checkWorkKinds(&p)
	opts := options(&p)
	checkSubmissions(&p, opts)
	w := newWork(awscdk.Stack_Of(scope), &p)
	opts.Work = w.graph
	definition, err := machines.Semaphore(opts)
	if err != nil {
		panicOnOptionError(err)
	}
	rendered, err := definition.Render()
	if err != nil {
		invalid("the definition cannot be rendered: %v", err)
	}

	// Every prop is valid: only now does the construct join the tree. The Go value itself is
	// the jsii object, so that it can be passed wherever a construct is expected.
	s := &semaphore{props: p, definition: definition}
	constructs.NewConstruct_Override(s, scope, id)
	s.table = p.Table
	if s.table == nil {
		s.table = newLockTable(s, removalPolicy(&p), p.Submissions != nil && *p.Submissions)
	}
	substitutions := maps.Clone(w.substitutions)
	if substitutions == nil {
		substitutions = map[string]*string{}
	}
	substitutions[machines.SubstitutionTableName] = s.table.TableName()
	if opts.WaitStrategy == machines.WaitCallback {
		s.handOff = newHandOff(s, s.table)
		substitutions[machines.SubstitutionHandOffFunctionArn] = s.handOff.FunctionArn()
	}

	smProps := &awsstepfunctions.StateMachineProps{
		DefinitionBody:          awsstepfunctions.DefinitionBody_FromString(jsii.String(string(rendered))),
		DefinitionSubstitutions: &substitutions,
		StateMachineType:        awsstepfunctions.StateMachineType_STANDARD,
		TracingEnabled:          jsii.Bool(p.Tracing == nil || *p.Tracing),
	}
	if p.Logging == nil || *p.Logging {
		s.logGroup = p.LogGroup
		if s.logGroup == nil {
			s.logGroup = awslogs.NewLogGroup(s, jsii.String("Logs"), &awslogs.LogGroupProps{
				Retention:     DefaultLogRetention,
				RemovalPolicy: removalPolicy(&p),
			})
		}
		smProps.Logs = &awsstepfunctions.LogOptions{
			Destination:          s.logGroup,
			Level:                awsstepfunctions.LogLevel_ALL,
			IncludeExecutionData: jsii.Bool(true),
		}
	}
	s.stateMachine = awsstepfunctions.NewStateMachine(s, jsii.String("StateMachine"), smProps)
	nag.Suppress(s.stateMachine.Role(), nag.LoggingAndTracing)

	// Least privilege on the lock table: under Poll the acquire and release transactions and
	// their read-backs; under Callback drawing a ticket (the hand-off function does the rest);
	// the Rate gate's updates of its rate item are UpdateItem too.
	tableActions := lock.TicketActions
	if opts.WaitStrategy == machines.WaitPoll {
		tableActions = append(append([]string(nil), lock.AcquireActions...), "dynamodb:DeleteItem")
	}
	s.table.Grant(s.stateMachine, *jsii.Strings(tableActions...)...)
	if key := s.table.EncryptionKey(); key != nil {
		key.GrantEncryptDecrypt(s.stateMachine) // a given table encrypted with its own key
	}
	for _, st := range w.statements {
		s.stateMachine.AddToRolePolicy(st)
	}
	if s.handOff != nil {
		grantHandOff(s, s.handOff, s.stateMachine)
	}
	if p.Submissions != nil && *p.Submissions {
		s.submit = newSubmit(s, s.table, s.stateMachine, &p)
	}
	// An imported function without a role is granted by whoever owns its role.
	if p.WorkFunction != nil && p.WorkFunction.Role() != nil {
		s.GrantSlotCheck(p.WorkFunction)
	}
	if p.Cleanup == nil || *p.Cleanup {
		s.cleanup = cleanup.New(s, jsii.String(CleanupID), &cleanup.Props{
			StateMachine:      s.stateMachine,
			Table:             s.table,
			LockName:          p.LockName,
			LockNamePath:      p.LockNamePath,
			Locks:             p.Locks,
			TotalLimit:        p.TotalLimit,
			TotalLockName:     p.TotalLockName,
			Limit:             p.Limit,
			HandOffFunction:   s.handOff,
			ReconcileSchedule: p.ReconcileSchedule,
			RemovalPolicy:     removalPolicy(&p),
		})
	}
	s.wireMetrics()
	return s
}

// Cleanup implements Semaphore.
func (s *semaphore) Cleanup() cleanup.Cleanup { return s.cleanup }

// HandOffFunction implements Semaphore.
func (s *semaphore) HandOffFunction() awslambda.Function { return s.handOff }

// SubmitFunction implements Semaphore.
func (s *semaphore) SubmitFunction() awslambda.Function { return s.submit }

// Table implements Semaphore.
func (s *semaphore) Table() awsdynamodb.ITable { return s.table }

// StateMachine implements Semaphore.
func (s *semaphore) StateMachine() awsstepfunctions.StateMachine { return s.stateMachine }

// LogGroup implements Semaphore.
func (s *semaphore) LogGroup() awslogs.ILogGroup { return s.logGroup }

// LockName implements Semaphore.
func (s *semaphore) LockName() string { return s.props.LockName }

// LockNamePath implements Semaphore.
func (s *semaphore) LockNamePath() string { return s.props.LockNamePath }

// Limit implements Semaphore.
func (s *semaphore) Limit() int { return s.props.Limit }

// GrantStartExecution implements Semaphore.
func (s *semaphore) GrantStartExecution(grantee awsiam.IGrantable) awsiam.Grant {
	return s.stateMachine.GrantStartExecution(grantee)
}

// GrantSlotCheck implements Semaphore.
func (s *semaphore) GrantSlotCheck(grantee awsiam.IGrantable) awsiam.Grant {
	if key := s.table.EncryptionKey(); key != nil {
		key.GrantEncryptDecrypt(grantee)
	}
	return s.table.Grant(grantee, *jsii.Strings("dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:PutItem")...)
}

// Definition implements Semaphore.
func (s *semaphore) Definition() *asl.StateMachine { return s.definition }
