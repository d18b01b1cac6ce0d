package sfnapi

import "context"

// Backend carries out the Step Functions operations the server exposes. The server decodes and
// validates each request as AWS does (required members, lengths, enums, ARN formats, execution
// names, JSON input and output) before calling the Backend, and encodes its response.
//
// A method fails with an *APIError (see the constructors such as ExecutionDoesNotExist) to
// answer with that Step Functions error; any other error is answered as a 500 InternalFailure.
// A nil response is answered as an empty one.
//
// What AWS does that is left to the Backend:
//   - StartExecution: generate a name (a UUID) when Name is empty; with the name of an
//     execution that is still running and the same input, answer that execution again; with
//     any other reused name, ExecutionAlreadyExists. Input is never empty (the server sets "{}").
//   - ListExecutions: newest first, filtered by StatusFilter and RedriveFilter, paged with
//     Paginate (scope: the ARN and the filters; key: the execution ARN).
//   - GetExecutionHistory: events with ids from 1 and PreviousEventID linking them, oldest
//     first or reversed by ReverseOrder, paged with Paginate (scope: the ARN and the order;
//     key: the event id). The server strips input and output when IncludeExecutionData is false.
//   - DescribeExecution: RedriveCount and, for a closed execution, StopDate; the server strips
//     input and output for METADATA_ONLY.
//   - SendTask*: InvalidToken for a token never issued, TaskTimedOut (or TaskDoesNotExist) for
//     a task that is no longer waiting.
//   - RedriveExecution: ExecutionNotRedrivable unless the execution FAILED, TIMED_OUT or was
//     ABORTED, as AWS documents.
type Backend interface {
	StartExecution(ctx context.Context, in *StartExecutionInput) (*StartExecutionOutput, error)
	DescribeExecution(ctx context.Context, in *DescribeExecutionInput) (*DescribeExecutionOutput, error)
	ListExecutions(ctx context.Context, in *ListExecutionsInput) (*ListExecutionsOutput, error)
	GetExecutionHistory(ctx context.Context, in *GetExecutionHistoryInput) (*GetExecutionHistoryOutput, error)
	StopExecution(ctx context.Context, in *StopExecutionInput) (*StopExecutionOutput, error)
	RedriveExecution(ctx context.Context, in *RedriveExecutionInput) (*RedriveExecutionOutput, error)
	SendTaskSuccess(ctx context.Context, in *SendTaskSuccessInput) (*SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, in *SendTaskFailureInput) (*SendTaskFailureOutput, error)
	SendTaskHeartbeat(ctx context.Context, in *SendTaskHeartbeatInput) (*SendTaskHeartbeatOutput, error)
	DescribeStateMachine(ctx context.Context, in *DescribeStateMachineInput) (*DescribeStateMachineOutput, error)
	ListStateMachines(ctx context.Context, in *ListStateMachinesInput) (*ListStateMachinesOutput, error)
}
