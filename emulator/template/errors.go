package template

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error Load returns wraps one of them, so callers can test with errors.Is.
var (
	// ErrInvalidTemplate reports a file that is not a CloudFormation template or cloud assembly
	// manifest Load can read (bad JSON, a resource without a type, a manifest without artifacts).
	ErrInvalidTemplate = errors.New("invalid template")
	// ErrStackNotFound reports a cloud assembly with no stack artifact, or none matching
	// Options.StackName.
	ErrStackNotFound = errors.New("stack not found")
	// ErrAmbiguousStack reports a cloud assembly with several stacks when Load needs exactly one
	// and Options.StackName does not pick one.
	ErrAmbiguousStack = errors.New("several stacks match; set Options.StackName")
	// ErrUnknownReference reports a Ref, Fn::GetAtt, Fn::Sub variable or condition naming a
	// resource, parameter or condition the template does not define (or excludes by condition).
	ErrUnknownReference = errors.New("reference to an unknown name")
	// ErrMissingParameter reports a Ref to a template parameter that has no Default and no value
	// in Options.Parameters.
	ErrMissingParameter = errors.New("parameter has no value")
	// ErrUnsupportedAttribute reports an Fn::GetAtt attribute the emulator does not model for
	// that resource type.
	ErrUnsupportedAttribute = errors.New("unsupported attribute")
	// ErrUnsupportedIntrinsic reports an intrinsic function the loader does not evaluate
	// (e.g. Fn::ImportValue, Fn::Transform).
	ErrUnsupportedIntrinsic = errors.New("unsupported intrinsic function")
	// ErrInvalidIntrinsic reports an intrinsic function with malformed arguments.
	ErrInvalidIntrinsic = errors.New("invalid intrinsic function arguments")
	// ErrCircularReference reports a resource whose physical name depends on itself.
	ErrCircularReference = errors.New("circular reference")
	// ErrInvalidProperty reports a resource property whose resolved value has the wrong shape
	// (e.g. a string where a number is required).
	ErrInvalidProperty = errors.New("invalid property value")
	// ErrNotSupported reports a template feature the emulator deliberately does not support,
	// such as a state machine definition stored in S3 (DefinitionS3Location).
	ErrNotSupported = errors.New("not supported by the emulator")
)

// ResolveError locates a failure inside a template: the resource's logical ID and the path of
// the offending value below it, e.g. Properties.DefinitionString.Fn::Join[1][4].
type ResolveError struct {
	// LogicalID is the logical ID of the resource being resolved ("" for a template-level value
	// such as a condition).
	LogicalID string
	// Path is the property path of the offending value inside the resource.
	Path string
	// Err is the underlying error; it wraps one of the package's sentinel errors.
	Err error
}

// Error renders the location and the cause.
func (e *ResolveError) Error() string {
	if e.LogicalID == "" {
		return fmt.Sprintf("template: %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("template: resource %s at %s: %v", e.LogicalID, e.Path, e.Err)
}

// Unwrap returns the underlying error.
func (e *ResolveError) Unwrap() error { return e.Err }
