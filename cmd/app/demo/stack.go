package demo

import (
	"strconv"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
	"github.com/turnstile-sfn/turnstile/golambda"
	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
)

// DoWorkPackage is the import path of the dowork function's main package.
const DoWorkPackage = "github.com/turnstile-sfn/turnstile/lambdas/dowork"

// TestRunnerPackage is the import path of the load-test function's main package.
const TestRunnerPackage = "github.com/turnstile-sfn/turnstile/lambdas/testrunner"

// testRunnerTimeoutMinutes is the load-test function's timeout, Lambda's longest: the original
// demo takes about six minutes on AWS.
const testRunnerTimeoutMinutes = 15

// Construct IDs of the demo's constructs (after Config.Prefix).
const (
	// DoWorkID is the dowork function's construct ID.
	DoWorkID = "DoWork"
	// SemaphoreID is the semaphore's construct ID.
	SemaphoreID = "Semaphore"
	// TestRunnerID is the load-test function's construct ID.
	TestRunnerID = "TestRunner"
)

// Names of the stack's outputs.
const (
	// OutputStateMachineArn is the ARN of the semaphore's state machine: start executions here.
	OutputStateMachineArn = "StateMachineArn"
	// OutputLockTableName is the lock table's name.
	OutputLockTableName = "LockTableName"
	// OutputDoWorkFunctionName is the dowork function's name.
	OutputDoWorkFunctionName = "DoWorkFunctionName"
	// OutputTestRunnerFunctionName is the load-test function's name.
	OutputTestRunnerFunctionName = "TestRunnerFunctionName"
)

// Stack is the demo stack: the dowork function behind a semaphore.
type Stack interface {
	awscdk.Stack
	// Semaphore returns the semaphore in front of the dowork function.
	Semaphore() semaphore.Semaphore
	// DoWork returns the dowork function.
	DoWork() awslambda.Function
}

type stack struct {
	awscdk.Stack
	semaphore semaphore.Semaphore
	doWork    awslambda.Function
}

// NewStack adds the demo stack to scope (an App): the dowork function (arm64, provided.al2023,
// built from DoWorkPackage) as the work of a semaphore of cfg.Limit slots on the lock
// cfg.LockName. cfg must be valid (see Config.Validate).
func NewStack(scope constructs.Construct, cfg Config) Stack {
	s := &stack{}
	awscdk.NewStack_Override(s, scope, jsii.String(cfg.StackName), &awscdk.StackProps{
		Description: jsii.String("Turnstile demo: at most " + strconv.Itoa(cfg.Limit) +
			" dowork invocations at once, through a Step Functions semaphore on DynamoDB"),
	})
	fnProps := &golambda.Props{
		Package: jsii.String(DoWorkPackage),
		// The work's duration and a margin for the slot check and a loaded machine, within
		// Lambda's 15 minutes.
		Timeout:     awscdk.Duration_Seconds(jsii.Number(min(cfg.WorkDuration+time.Minute, 15*time.Minute).Seconds())),
		Description: jsii.String("Turnstile demo work: sleeps, and sometimes fails"),
		Environment: &map[string]*string{
			work.EnvDuration:    jsii.String(cfg.WorkDuration.String()),
			work.EnvFailureRate: jsii.String(strconv.FormatFloat(cfg.FailureRate, 'f', -1, 64)),
		},
	}
	if cfg.ReservedConcurrency > 0 {
		fnProps.ReservedConcurrentExecutions = jsii.Number(cfg.ReservedConcurrency)
	}
	fn := golambda.New(s, jsii.String(cfg.Prefix+DoWorkID), fnProps)
	lockName := cfg.LockName
	if len(cfg.Locks) > 0 || cfg.LockNamePath != "" {
		lockName = ""
	}
	props := &semaphore.Props{
		LockName:     lockName,
		LockNamePath: cfg.LockNamePath,
		Locks:        cfg.Locks,
		TotalLimit:   cfg.TotalLimit,
		Limit:        cfg.Limit,
		WorkFunction: fn,
		WaitStrategy: cfg.WaitStrategy,
		Rate:         cfg.Rate,
	}
	if cfg.Weighted {
		props.WeightPath = DemoWeightPath
	}
	if cfg.Submissions {
		props.Submissions = jsii.Bool(true)
	}
	if cfg.PriorityAgeing > 0 {
		props.PriorityPath, props.PriorityAgeing = DemoPriorityPath, cfg.PriorityAgeing
	}
	sem := semaphore.New(s, jsii.String(cfg.Prefix+SemaphoreID), props)

	// The load test, deployed beside the semaphore: it starts executions, reads their histories
	// and the lock table, and returns its report (invoke it with a runner.Config as the event).
	testRunner := golambda.New(s, jsii.String(cfg.Prefix+TestRunnerID), &golambda.Props{
		Package:     jsii.String(TestRunnerPackage),
		Description: jsii.String("Turnstile load test: starts executions of the semaphore and reports"),
		Timeout:     awscdk.Duration_Minutes(jsii.Number(testRunnerTimeoutMinutes)),
	})
	sem.GrantStartExecution(testRunner)
	sem.StateMachine().GrantExecution(testRunner, jsii.String("states:DescribeExecution"), jsii.String("states:GetExecutionHistory"))
	sem.Table().GrantReadData(testRunner)

	output := func(id, description string, value *string) {
		awscdk.NewCfnOutput(s, jsii.String(id), &awscdk.CfnOutputProps{Value: value, Description: jsii.String(description)})
	}
	output(OutputStateMachineArn, "Start executions of the semaphore here", sem.StateMachine().StateMachineArn())
	output(OutputLockTableName, "The lock table: one item per lock", sem.Table().TableName())
	output(OutputDoWorkFunctionName, "The protected work", fn.FunctionName())
	output(OutputTestRunnerFunctionName, "The load test: invoke it with {\"stateMachineArn\": …, \"lockTable\": …}", testRunner.FunctionName())

	addMonitoring(s, cfg, sem)
	suppressNagFindings(testRunner)
	s.semaphore, s.doWork = sem, fn
	return s
}

// Semaphore implements Stack.
func (s *stack) Semaphore() semaphore.Semaphore { return s.semaphore }

// DoWork implements Stack.
func (s *stack) DoWork() awslambda.Function { return s.doWork }
