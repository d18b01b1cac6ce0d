package machines

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Keys of the CloudFormation DefinitionSubstitutions that the definitions use. Deploy-time
// values (physical names and ARNs) enter the definition as Placeholder(key), so a definition is
// a pure function of its options and its golden file equals the synthesized DefinitionString.
const (
	// SubstitutionTableName stands for the lock table's name.
	SubstitutionTableName = "LockTableName"
	// SubstitutionWorkFunctionArn stands for the ARN of the work Lambda function.
	SubstitutionWorkFunctionArn = "WorkFunctionArn"
	// SubstitutionWorkStateMachineArn stands for the ARN of the work state machine.
	SubstitutionWorkStateMachineArn = "WorkStateMachineArn"
)

// Placeholder returns the DefinitionSubstitutions reference to key: "${key}".
func Placeholder(key string) string { return "${" + key + "}" }

// Names of the states of the work graphs built here.
const (
	// StateInvokeWorkFunction is the single state of LambdaWork.
	StateInvokeWorkFunction = "Invoke Work Function"
	// StateRunWorkStateMachine is the single state of StateMachineWork.
	StateRunWorkStateMachine = "Run Work State Machine"
)

// Resources of the work graphs' tasks.
const (
	// ResourceLambdaInvoke is the optimized Lambda integration (request-response).
	ResourceLambdaInvoke = "arn:aws:states:::lambda:invoke"
	// ResourceStartExecutionSync is the Step Functions integration that starts a child
	// execution and waits for it, returning its output parsed as JSON.
	ResourceStartExecutionSync = "arn:aws:states:::states:startExecution.sync:2"
)

// lambdaServiceErrors are the transient Lambda service errors AWS recommends retrying
// (Step Functions best practices, "Handle Lambda service exceptions").
var lambdaServiceErrors = []string{
	"Lambda.ClientExecutionTimeoutException",
	"Lambda.ServiceException",
	"Lambda.AWSLambdaException",
	"Lambda.SdkClientException",
}

// LambdaWork returns a work graph that invokes a Lambda function with the execution input as
// its payload and passes on the function's result. Lambda service errors are retried as AWS
// recommends (2 s, ×2, 6 attempts); throttling (Lambda.TooManyRequestsException, e.g. under a
// reserved concurrency below the limit) is retried with jitter. The function's own errors are
// not retried: they fail the work, and the semaphore re-raises them after the release.
func LambdaWork(functionArn string) *asl.Graph {
	task := &asl.Task{
		Common:     asl.Common{OutputPath: asl.P("$.Payload")},
		Transition: asl.End(),
		Resource:   ResourceLambdaInvoke,
		Parameters: map[string]any{
			"FunctionName": functionArn,
			"Payload.$":    "$",
		},
		Retry: []*asl.Retrier{
			{
				ErrorEquals:     lambdaServiceErrors,
				IntervalSeconds: asl.Int(2),
				MaxAttempts:     asl.Int(6),
				BackoffRate:     asl.Float(2),
			},
			{
				ErrorEquals:     []string{"Lambda.TooManyRequestsException"},
				IntervalSeconds: asl.Int(2),
				MaxAttempts:     asl.Int(6),
				BackoffRate:     asl.Float(2),
				MaxDelaySeconds: asl.Int(30),
				JitterStrategy:  asl.JitterFull,
			},
		},
	}
	return &asl.Graph{
		StartAt: StateInvokeWorkFunction,
		States:  asl.States{{Name: StateInvokeWorkFunction, State: task}},
	}
}

// StateMachineWork returns a work graph that runs another state machine as a child execution
// (startExecution.sync:2) with the execution input, waits for it and passes on its output.
// Only StepFunctions.ExecutionLimitExceeded is retried: it means no child was started, whereas
// retrying any other start error could start the child twice.
func StateMachineWork(stateMachineArn string) *asl.Graph {
	task := &asl.Task{
		Common:     asl.Common{OutputPath: asl.P("$.Output")},
		Transition: asl.End(),
		Resource:   ResourceStartExecutionSync,
		Parameters: map[string]any{
			"StateMachineArn": stateMachineArn,
			"Input.$":         "$",
		},
		Retry: []*asl.Retrier{
			{
				ErrorEquals:     []string{"StepFunctions.ExecutionLimitExceededException"},
				IntervalSeconds: asl.Int(2),
				MaxAttempts:     asl.Int(6),
				BackoffRate:     asl.Float(2),
				MaxDelaySeconds: asl.Int(60),
				JitterStrategy:  asl.JitterFull,
			},
		},
	}
	return &asl.Graph{
		StartAt: StateRunWorkStateMachine,
		States:  asl.States{{Name: StateRunWorkStateMachine, State: task}},
	}
}

// Keys of the Lambda client context the semaphore passes its LambdaWork (ClientContext.Custom),
// read by package slot. Every value is a string.
const (
	// ClientContextKeyExecution is the execution's ARN.
	ClientContextKeyExecution = "turnstileExecution"
	// ClientContextKeyTable is the lock table's name.
	ClientContextKeyTable = "turnstileTable"
	// ClientContextKeyLock is the lock's name.
	ClientContextKeyLock = "turnstileLock"
	// ClientContextKeyLimit is the lock's limit, in decimal.
	ClientContextKeyLimit = "turnstileLimit"
	// ClientContextKeyRedriveCount is the execution's redrive count ($$.Execution.RedriveCount),
	// in decimal.
	ClientContextKeyRedriveCount = "turnstileRedriveCount"
	// ClientContextKeyLocks is, instead of a lock and a limit, the number of locks an
	// execution of a semaphore with several locks (Locks, TotalLimit) holds during its work,
	// in decimal (the locks it names; a name given twice in one input counts twice).
	ClientContextKeyLocks = "turnstileLocks"
)

// Error names of the work-side slot check (package slot).
const (
	// ErrorNotHolder: the work found that its execution holds no slot and refused to start.
	ErrorNotHolder = "Turnstile.NotHolder"
	// ErrorNoSlotContext: the work was not invoked with the semaphore's client context.
	ErrorNoSlotContext = "Turnstile.NoSlotContext"
)

// withSlotContext returns the work graph with, when it is a LambdaWork graph, the Lambda
// client context package slot reads: the base64 of {"custom": {execution, table, lock, limit,
// redrive count}}. Any other work graph is returned as it is.
func withSlotContext(work *asl.Graph, o SemaphoreOptions) *asl.Graph {
	lock := "States.JsonToString(" + o.LockNamePath + ")"
	if o.LockNamePath == "" {
		encoded, _ := json.Marshal(o.LockName) // a string always encodes
		lock = intrinsicLiteral(string(encoded))
	}
	format := fmt.Sprintf(`\{"custom":\{"%s":"{}","%s":"{}","%s":{},"%s":"%d","%s":"{}"\}\}`,
		ClientContextKeyExecution, ClientContextKeyTable, ClientContextKeyLock, ClientContextKeyLimit, o.Limit, ClientContextKeyRedriveCount)
	return withClientContext(work, fmt.Sprintf("'%s', $$.Execution.Id, '%s', %s, $$.Execution.RedriveCount", format, o.TableName, lock))
}

// withSeveralLocksContext is withSlotContext for an execution that holds n locks at once
// during its work: the context names the execution, the table, the number of locks
// (ClientContextKeyLocks) and the redrive count, without a lock or a limit.
func withSeveralLocksContext(work *asl.Graph, o SemaphoreOptions, n int) *asl.Graph {
	format := fmt.Sprintf(`\{"custom":\{"%s":"{}","%s":"{}","%s":"%d","%s":"{}"\}\}`,
		ClientContextKeyExecution, ClientContextKeyTable, ClientContextKeyLocks, n, ClientContextKeyRedriveCount)
	return withClientContext(work, fmt.Sprintf("'%s', $$.Execution.Id, '%s', $$.Execution.RedriveCount", format, o.TableName))
}

// withClientContext returns the work graph with, when it is a LambdaWork graph, ClientContext
// set to the base64 of States.Format(format and args). Any other work graph is returned as it is.
func withClientContext(work *asl.Graph, formatAndArgs string) *asl.Graph {
	if len(work.States) != 1 || work.States[0].Name != StateInvokeWorkFunction {
		return work
	}
	task, ok := work.States[0].State.(*asl.Task)
	if !ok || task.Resource != ResourceLambdaInvoke {
		return work
	}
	params, ok := task.Parameters.(map[string]any)
	if !ok {
		return work
	}
	clone := *task
	params = maps.Clone(params)
	params["ClientContext.$"] = "States.Base64Encode(States.Format(" + formatAndArgs + "))"
	clone.Parameters = params
	return &asl.Graph{StartAt: work.StartAt, States: asl.States{{Name: StateInvokeWorkFunction, State: &clone}}}
}

// intrinsicLiteral quotes s as an intrinsic function's string literal, escaping the characters
// the States Language reserves there.
func intrinsicLiteral(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, `{`, `\{`, `}`, `\}`).Replace(s) + "'"
}
