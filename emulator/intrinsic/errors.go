package intrinsic

import (
	"errors"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl"
)

var (
	// ErrSyntax is wrapped by every *SyntaxError: the expression is not a valid intrinsic
	// function call, and AWS rejects the state machine definition that contains it.
	ErrSyntax = errors.New("intrinsic: invalid intrinsic function call")
	// ErrInvalidArguments is wrapped by the *Error of a function that received the wrong number
	// of arguments or an argument of the wrong type or value.
	ErrInvalidArguments = errors.New("intrinsic: invalid arguments")
	// ErrPathNotFound is wrapped by *NotFoundError: a JSONPath argument selected nothing.
	ErrPathNotFound = errors.New("intrinsic: JSONPath argument selected nothing")
	// ErrNoResolver is returned by Evaluate when the expression has a JSONPath argument and the
	// Resolver is nil. It is a programming error, not an AWS failure.
	ErrNoResolver = errors.New("intrinsic: nil Resolver")
	// ErrNoRandomSource is returned by Evaluate when States.UUID or an unseeded
	// States.MathRandom runs with a nil Env.Rand. It is a programming error, not an AWS failure.
	ErrNoRandomSource = errors.New("intrinsic: nil Env.Rand")
)

// Error is an intrinsic function that failed at run time, as AWS Step Functions reports it.
//
// Name is always asl.ErrorRuntime: AWS fails the state with States.Runtime (not
// States.IntrinsicFailure) when an intrinsic function cannot be evaluated, so Retry and Catch
// clauses see States.Runtime. Message is the part of the cause that follows the state prefix:
//
//	The function '<expression as written>' had the following error: <detail>
//
// where <detail> is "Invalid arguments in States.<Name>" for a wrong argument count, type or
// value, or "The JsonPath argument for the field '<path>' could not be found in the input
// '<state input as JSON>'" for a JSONPath argument that selects nothing.
//
// The interpreter must wrap it exactly once, at the state that evaluated the expression:
// error name Name, cause
//
//	An error occurred while executing the state '<state name>' (entered at the event id #<n>). <Message>
//
// where <n> is the id of that state's *StateEntered history event. Cause and ASL build that
// text. Err, when set, is the underlying error (ErrInvalidArguments or a *NotFoundError).
type Error struct {
	// Name is the States Language error name, asl.ErrorRuntime.
	Name string
	// Message is the cause without the "An error occurred while executing the state" prefix.
	Message string
	// Err is the underlying error, if any; Unwrap returns it.
	Err error
}

// Error renders the failure as "name: message".
func (e *Error) Error() string { return e.Name + ": " + e.Message }

// Unwrap returns the underlying error (ErrInvalidArguments or a *NotFoundError), if any.
func (e *Error) Unwrap() error { return e.Err }

// Cause returns the cause AWS reports for this failure in the state named stateName, whose
// *StateEntered history event has the id enteredEventID.
func (e *Error) Cause(stateName string, enteredEventID int64) string {
	return fmt.Sprintf("An error occurred while executing the state '%s' (entered at the event id #%d). %s",
		stateName, enteredEventID, e.Message)
}

// ASL returns the failure as the *asl.Error the interpreter raises for the state named
// stateName entered at history event enteredEventID.
func (e *Error) ASL(stateName string, enteredEventID int64) *asl.Error {
	return asl.NewError(e.Name, e.Cause(stateName, enteredEventID))
}

// SyntaxError is an expression that Parse rejects. AWS rejects such a value at state machine
// creation (CreateStateMachine, ValidateStateMachineDefinition) with the error code
// SCHEMA_VALIDATION_FAILED and the message DefinitionMessage returns, followed by the location
// of the field (for example " at /States/Format/Parameters").
type SyntaxError struct {
	// Expr is the expression as given to Parse.
	Expr string
	// Offset is the byte offset in Expr where parsing stopped.
	Offset int
	// Reason says what is wrong, in this package's words.
	Reason string
}

// Error describes the syntax error with its offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("intrinsic: %s at offset %d in %q", e.Reason, e.Offset, e.Expr)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// DefinitionMessage returns AWS's definition-validation message for the payload template field
// (for example "greeting.$") whose value is the rejected expression.
func (e *SyntaxError) DefinitionMessage(field string) string {
	return fmt.Sprintf("The value for the field '%s' must be a valid JSONPath or a valid intrinsic function call", field)
}

// NotFoundError is what a Resolver returns when a JSONPath argument selects nothing. Evaluate
// turns it into an *Error whose cause quotes Input, the state input (AWS quotes the state input
// even for a "$$." path into the context object).
type NotFoundError struct {
	// Path is the path that selected nothing, as the Resolver received it.
	Path string
	// Input is the state input the cause quotes.
	Input any
}

// Error names the path that selected nothing.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("intrinsic: JSONPath %s selected nothing", e.Path)
}

// Unwrap returns ErrPathNotFound.
func (e *NotFoundError) Unwrap() error { return ErrPathNotFound }

// failure is an evaluation error below the top-level call; Evaluate wraps it into an *Error
// that names the whole expression.
type failure struct {
	detail string
	err    error
}

func (f *failure) Error() string { return f.detail }

func (f *failure) Unwrap() error { return f.err }
