package machines

import "github.com/turnstile-sfn/turnstile/asl"

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
