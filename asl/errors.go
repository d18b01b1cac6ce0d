package asl

// Error names defined by the Amazon States Language specification. Task integrations raise their
// own names too (for example "DynamoDB.ConditionalCheckFailedException" or "Lambda.Unknown").
const (
	ErrorAll                  = "States.ALL"
	ErrorDataLimitExceeded    = "States.DataLimitExceeded"
	ErrorExceedToleratedFail  = "States.ExceedToleratedFailureThreshold"
	ErrorHeartbeatTimeout     = "States.HeartbeatTimeout"
	ErrorIntrinsicFailure     = "States.IntrinsicFailure"
	ErrorItemReaderFailed     = "States.ItemReaderFailed"
	ErrorNoChoiceMatched      = "States.NoChoiceMatched"
	ErrorParameterPathFailure = "States.ParameterPathFailure"
	ErrorPermissions          = "States.Permissions"
	ErrorResultPathMatchFail  = "States.ResultPathMatchFailure"
	ErrorResultWriterFailed   = "States.ResultWriterFailed"
	ErrorRuntime              = "States.Runtime"
	ErrorBranchFailed         = "States.BranchFailed"
	ErrorTaskFailed           = "States.TaskFailed"
	ErrorTimeout              = "States.Timeout"
	ErrorQueryEvaluation      = "States.QueryEvaluationError"
)

// Error is a runtime error as the States Language sees it: a name that Retry and Catch match on
// with ErrorEquals, and a human-readable cause. Task integrations return *Error to report the
// name their service would report.
type Error struct {
	// Name is the error name, e.g. "States.Timeout" or "DynamoDB.ConditionalCheckFailedException".
	Name string
	// Cause is the human-readable description AWS would put in the failure's cause.
	Cause string
}

// NewError returns an *Error with the given name and cause.
func NewError(name, cause string) *Error { return &Error{Name: name, Cause: cause} }

// Error renders the error as "name: cause" (or the name alone when there is no cause).
func (e *Error) Error() string {
	if e.Cause == "" {
		return e.Name
	}
	return e.Name + ": " + e.Cause
}
