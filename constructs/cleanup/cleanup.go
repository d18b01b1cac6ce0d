package cleanup

import (
	"errors"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/golambda"
	"github.com/turnstile-sfn/turnstile/internal/cwmetric"
	"github.com/turnstile-sfn/turnstile/internal/nag"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

// Cleanup frees what dead executions of a semaphore hold: a rule on their FAILED, TIMED_OUT
// and ABORTED events starting the cleanup machine, a scheduled reconciler, and a redrive guard.
type Cleanup interface {
	constructs.Construct
	// StateMachine returns the cleanup machine.
	StateMachine() awsstepfunctions.StateMachine
	// Rule returns the rule on the semaphore's FAILED, TIMED_OUT and ABORTED events.
	Rule() awsevents.Rule
	// DeadLetterQueue returns the queue of the events the rules could not deliver.
	DeadLetterQueue() awssqs.Queue
	// DeadLetterAlarm returns the alarm on the dead-letter queue's depth.
	DeadLetterAlarm() awscloudwatch.Alarm
	// Reconciler returns the reconciler function, or nil when Props.Reconciler is false.
	Reconciler() awslambda.Function
	// RedriveGuard returns the redrive guard machine, or nil when Props.RedriveGuard is false.
	RedriveGuard() awsstepfunctions.StateMachine
	// MetricSlotsFreedByCleanup counts the slots the cleanup machine freed (Count; default
	// statistic Sum over 5 minutes): the hand-off function writes it, so it exists under the
	// Callback strategy only. See package metrics and the Semaphore's Monitoring.
	MetricSlotsFreedByCleanup(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
	// MetricSlotsFreedByReconciler counts the slots the reconciler freed (Count; Sum over 5
	// minutes): each means a status-change event was lost or the cleanup did not run.
	MetricSlotsFreedByReconciler(props *awscloudwatch.MetricOptions) awscloudwatch.Metric
}

type cleanup struct {
	constructs.Construct
	stateMachine awsstepfunctions.StateMachine
	rule         awsevents.Rule
	dlq          awssqs.Queue
	alarm        awscloudwatch.Alarm
	reconciler   awslambda.Function
	guard        awsstepfunctions.StateMachine
	metricsName  string
}

// New creates a Cleanup for the semaphore described by props. It panics, naming the prop, when
// the props are invalid.
func New(scope constructs.Construct, id *string, props *Props) Cleanup {
	if props == nil || props.StateMachine == nil || props.Table == nil {
		panic("cleanup: Props.StateMachine and Props.Table are required")
	}
	p := *props
	opts := machines.CleanupOptions{LockName: p.LockName, LockNamePath: p.LockNamePath, Locks: p.Locks, Limit: p.Limit,
		TotalLimit: p.TotalLimit, TotalLockName: p.TotalLockName}
	if p.HandOffFunction != nil {
		opts.HandOffFunctionArn = machines.Placeholder(machines.SubstitutionHandOffFunctionArn)
	}
	cleanupDef, err := machines.Cleanup(opts)
	if err != nil {
		panicOnOptionError(err)
	}
	guardOn := p.RedriveGuard == nil || *p.RedriveGuard
	var guardDef *asl.StateMachine
	if guardOn {
		if guardDef, err = machines.RedriveGuard(opts); err != nil {
			panicOnOptionError(err)
		}
	}
	removal := p.RemovalPolicy
	if removal == "" {
		removal = awscdk.RemovalPolicy_DESTROY
	}

	c := &cleanup{metricsName: p.MetricsName}
	constructs.NewConstruct_Override(c, scope, id)
	if c.metricsName == "" {
		c.metricsName = *scope.Node().Path()
	}
	c.dlq = awssqs.NewQueue(c, jsii.String("DeadLetterQueue"), &awssqs.QueueProps{
		EnforceSSL:      jsii.Bool(true),
		Encryption:      awssqs.QueueEncryption_SQS_MANAGED,
		RetentionPeriod: awscdk.Duration_Days(jsii.Number(14)),
		RemovalPolicy:   removal,
	})
	c.alarm = awscloudwatch.NewAlarm(c, jsii.String("DeadLetterAlarm"), &awscloudwatch.AlarmProps{
		AlarmDescription: jsii.String("Turnstile cleanup events could not be delivered: slots may stay held until the reconciler runs"),
		Metric: c.dlq.MetricApproximateNumberOfMessagesVisible(&awscloudwatch.MetricOptions{
			Period: awscdk.Duration_Minutes(jsii.Number(5)), Statistic: jsii.String("Maximum"),
		}),
		Threshold:          jsii.Number(DefaultDeadLetterAlarmThreshold),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})

	logs := awslogs.NewLogGroup(c, jsii.String("Logs"), &awslogs.LogGroupProps{
		Retention:     awslogs.RetentionDays_ONE_MONTH,
		RemovalPolicy: removal,
	})
	c.stateMachine = c.newMachine("StateMachine", cleanupDef, &p, logs, false)
	c.rule = c.newRule("Rule", p.StateMachine, c.stateMachine, map[string]any{
		"status": []any{"FAILED", "TIMED_OUT", "ABORTED"},
	})
	if guardOn {
		c.guard = c.newMachine("RedriveGuard", guardDef, &p, logs, true)
		c.newRule("RedriveRule", p.StateMachine, c.guard, map[string]any{
			"status":       []any{machines.ExecutionStatusRunning},
			"redriveCount": []any{map[string]any{"numeric": []any{">", 0}}},
		})
	}
	if p.Reconciler == nil || *p.Reconciler {
		c.reconciler = c.newReconciler(&p)
	}
	nag.Suppress(c.dlq, deadLetterQueueSuppression)
	return c
}

// The cdk-nag findings the cleanup accepts, with their reasons, each recorded on the resource
// it concerns.
var (
	// executionsSuppression is accepted on the machines' and the reconciler's roles.
	executionsSuppression = nag.Suppression{
		RuleID:           "AwsSolutions-IAM5",
		AppliesToPattern: nag.ExecutionsOfOneMachine,
		Reason: "the cleanup, the redrive guard and the reconciler describe (and the guard stops) executions of the " +
			"semaphore's state machine whose names are made at run time: the grant covers that machine's executions only",
	}
	// deadLetterQueueSuppression is accepted on the dead-letter queue.
	deadLetterQueueSuppression = nag.Suppression{
		RuleID: "AwsSolutions-SQS3",
		Reason: "this queue is itself the dead-letter queue of the cleanup's rule targets; its depth raises an alarm",
	}
)

// NagSuppressions are the cdk-nag findings the cleanup accepts on its own resources: the
// machines' logging and tracing actions, which take no resource, their and the reconciler's
// grants on the semaphore's executions, and the dead-letter queue that has none of its own.
var NagSuppressions = []nag.Suppression{nag.LoggingAndTracing, executionsSuppression, deadLetterQueueSuppression}

// panicOnOptionError panics as constructs do: an options error names the prop (Props share the
// names of CleanupOptions), any other error is reported as it is.
func panicOnOptionError(err error) {
	var oe *machines.OptionError
	if errors.As(err, &oe) {
		panic("cleanup: Props." + strings.TrimPrefix(err.Error(), "CleanupOptions."))
	}
	panic("cleanup: " + err.Error())
}

// newMachine creates a machine of def, logging every event to logs, with least-privilege grants: DescribeExecution (and
// StopExecution for the guard) on the semaphore's executions only, and the table actions on the
// lock table only.
func (c *cleanup) newMachine(id string, def *asl.StateMachine, p *Props, logs awslogs.ILogGroup, stops bool) awsstepfunctions.StateMachine {
	rendered, err := def.Render()
	if err != nil {
		panic("cleanup: the " + id + " definition cannot be rendered: " + err.Error())
	}
	substitutions := map[string]*string{machines.SubstitutionTableName: p.Table.TableName()}
	if p.HandOffFunction != nil && !stops {
		substitutions[machines.SubstitutionHandOffFunctionArn] = p.HandOffFunction.FunctionArn()
	}
	sm := awsstepfunctions.NewStateMachine(c, jsii.String(id), &awsstepfunctions.StateMachineProps{
		DefinitionBody:          awsstepfunctions.DefinitionBody_FromString(jsii.String(string(rendered))),
		DefinitionSubstitutions: &substitutions,
		StateMachineType:        awsstepfunctions.StateMachineType_STANDARD,
		TracingEnabled:          jsii.Bool(true),
		Logs: &awsstepfunctions.LogOptions{
			Destination:          logs,
			Level:                awsstepfunctions.LogLevel_ALL,
			IncludeExecutionData: jsii.Bool(true),
		},
	})
	actions := []*string{jsii.String("states:DescribeExecution")}
	if stops {
		actions = append(actions, jsii.String("states:StopExecution"))
	}
	p.StateMachine.GrantExecution(sm, actions...)
	nag.Suppress(sm.Role(), nag.LoggingAndTracing, executionsSuppression)
	if p.HandOffFunction != nil && !stops {
		// The cleanup releases through the hand-off function, which alone writes the table.
		sm.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("lambda:InvokeFunction"),
			Resources: &[]*string{p.HandOffFunction.FunctionArn()},
		}))
		return sm
	}
	actionsOnTable := lock.ReleaseActions
	if stops {
		actionsOnTable = lock.AcquireActions // the guard re-acquires
	}
	p.Table.Grant(sm, *jsii.Strings(actionsOnTable...)...)
	if key := p.Table.EncryptionKey(); key != nil {
		key.GrantEncryptDecrypt(sm)
	}
	return sm
}

// newRule starts target on the semaphore's status-change events whose detail also matches
// detail, retrying for DefaultMaxEventAgeHours and then dead-lettering.
func (c *cleanup) newRule(id string, semaphore awsstepfunctions.IStateMachine, target awsstepfunctions.IStateMachine, detail map[string]any) awsevents.Rule {
	detail["stateMachineArn"] = []any{semaphore.StateMachineArn()}
	rule := awsevents.NewRule(c, jsii.String(id), &awsevents.RuleProps{
		EventPattern: &awsevents.EventPattern{
			Source:     jsii.Strings("aws.states"),
			DetailType: jsii.Strings("Step Functions Execution Status Change"),
			Detail:     &detail,
		},
	})
	rule.AddTarget(awseventstargets.NewSfnStateMachine(target, &awseventstargets.SfnStateMachineProps{
		DeadLetterQueue: c.dlq,
		RetryAttempts:   jsii.Number(DefaultRetryAttempts),
		MaxEventAge:     awscdk.Duration_Hours(jsii.Number(DefaultMaxEventAgeHours)),
	}))
	return rule
}

// newReconciler creates the reconciler function and its schedule.
func (c *cleanup) newReconciler(p *Props) awslambda.Function {
	fn := golambda.New(c, jsii.String("Reconciler"), &golambda.Props{
		Package:     jsii.String(ReconcilerPackage),
		Description: jsii.String("Turnstile reconciler: frees the slots of executions that are not running"),
		Timeout:     awscdk.Duration_Minutes(jsii.Number(5)),
		Environment: &map[string]*string{
			machines.EnvReconcilerLockTable:       p.Table.TableName(),
			machines.EnvReconcilerStateMachineArn: p.StateMachine.StateMachineArn(),
			machines.EnvReconcilerLimit:           jsii.String(strconv.Itoa(reconcilerLimit(p))),
			metrics.EnvSemaphore:                  jsii.String(c.metricsName),
		},
	})
	p.StateMachine.GrantExecution(fn, jsii.String("states:DescribeExecution"))
	nag.Suppress(fn.Role(), executionsSuppression)
	if p.HandOffFunction != nil {
		// Releasing where executions wait means handing off: wake the waiter.
		p.StateMachine.GrantTaskResponse(fn)
	}
	p.Table.Grant(fn, *jsii.Strings(append([]string{"dynamodb:Scan"}, lock.ClientActions...)...)...)
	if key := p.Table.EncryptionKey(); key != nil {
		key.GrantEncryptDecrypt(fn)
	}
	schedule := p.ReconcileSchedule
	if schedule == nil {
		schedule = awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(DefaultReconcileMinutes)))
	}
	awsevents.NewRule(c, jsii.String("ReconcileSchedule"), &awsevents.RuleProps{
		Schedule: schedule,
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn, &awseventstargets.LambdaFunctionProps{
			DeadLetterQueue: c.dlq,
			RetryAttempts:   jsii.Number(2),
		})},
	})
	return fn
}

// StateMachine implements Cleanup.
func (c *cleanup) StateMachine() awsstepfunctions.StateMachine { return c.stateMachine }

// Rule implements Cleanup.
func (c *cleanup) Rule() awsevents.Rule { return c.rule }

// DeadLetterQueue implements Cleanup.
func (c *cleanup) DeadLetterQueue() awssqs.Queue { return c.dlq }

// DeadLetterAlarm implements Cleanup.
func (c *cleanup) DeadLetterAlarm() awscloudwatch.Alarm { return c.alarm }

// MetricSlotsFreedByCleanup implements Cleanup.
func (c *cleanup) MetricSlotsFreedByCleanup(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return cwmetric.New(c.metricsName, metrics.SlotsFreedByCleanup, awscloudwatch.Stats_SUM(), props)
}

// MetricSlotsFreedByReconciler implements Cleanup.
func (c *cleanup) MetricSlotsFreedByReconciler(props *awscloudwatch.MetricOptions) awscloudwatch.Metric {
	return cwmetric.New(c.metricsName, metrics.SlotsFreedByReconciler, awscloudwatch.Stats_SUM(), props)
}

// Reconciler implements Cleanup.
func (c *cleanup) Reconciler() awslambda.Function { return c.reconciler }

// RedriveGuard implements Cleanup.
func (c *cleanup) RedriveGuard() awsstepfunctions.StateMachine { return c.guard }

// reconcilerLimit is the limit the reconciler releases with: the semaphore's Limit, or with
// Locks the smallest of theirs. A lock's counter item holds its live limit from its first park
// on, so this is only the fallback of a lock without one.
func reconcilerLimit(p *Props) int {
	limit := p.Limit
	for _, l := range p.Locks {
		if l.Limit == 0 {
			l.Limit = p.Limit
		}
		if limit == 0 || l.Limit < limit {
			limit = l.Limit
		}
	}
	return limit
}
