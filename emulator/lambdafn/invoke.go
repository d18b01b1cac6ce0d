package lambdafn

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/lambdacontext"
)

// InvocationType is how Lambda's Invoke runs the function.
type InvocationType string

// The invocation types of Lambda's Invoke API.
const (
	// RequestResponse runs the function and waits for its response (the default).
	RequestResponse InvocationType = "RequestResponse"
	// Event queues the invocation, answers at once, and retries it on failure.
	Event InvocationType = "Event"
	// DryRun checks the request without running the function.
	DryRun InvocationType = "DryRun"
)

// FunctionErrorUnhandled is the FunctionError Lambda reports for an error a runtime returned.
const FunctionErrorUnhandled = "Unhandled"

// InvokeInput is a request to Lambda's Invoke API.
type InvokeInput struct {
	// FunctionName is a function name, partial ARN or ARN, optionally qualified. Required.
	FunctionName string
	// Qualifier is a version or alias; it must agree with a qualifier in FunctionName.
	Qualifier string
	// InvocationType defaults to RequestResponse.
	InvocationType InvocationType
	// ClientContext is base64-encoded JSON handed to the function as its client context.
	ClientContext string
	// Payload is the function's input; empty means "{}", as in Lambda.
	Payload []byte
}

// InvokeOutput is Lambda's answer to Invoke.
type InvokeOutput struct {
	// StatusCode is 200 for RequestResponse, 202 for Event and 204 for DryRun.
	StatusCode int
	// ExecutedVersion is the version that ran: the qualifier when it is a version number,
	// LatestVersion otherwise. Empty for Event and DryRun.
	ExecutedVersion string
	// FunctionError is FunctionErrorUnhandled when the function failed; Payload then holds the
	// error document (see FunctionError).
	FunctionError string
	// Payload is the function's response, or its error document.
	Payload []byte
	// RequestID is the invocation's request id.
	RequestID string
}

// Invoke invokes a function as Lambda's Invoke API does. A function error (an error returned
// by the handler, a panic, a timeout) is not an error of Invoke: it is reported in the output's
// FunctionError and Payload. Invoke's error is a *ServiceError (function not found, throttled,
// invalid request, a simulated service fault) or the context's error when ctx ends first; the
// function keeps running in that case, as it does in Lambda when the caller goes away.
func (r *Registry) Invoke(ctx context.Context, in *InvokeInput) (*InvokeOutput, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	requestID := r.ids.requestID()
	out, err := r.invoke(ctx, in, requestID)
	if se, ok := err.(*ServiceError); ok && se.RequestID == "" {
		se.RequestID = requestID
	}
	return out, err
}

// invoke carries out Invoke under the request id the registry assigned.
func (r *Registry) invoke(ctx context.Context, in *InvokeInput, requestID string) (*InvokeOutput, error) {
	ref, err := r.resolve(in.FunctionName)
	if err != nil {
		return nil, validationError(in.FunctionName, "functionName", err)
	}
	if in.Qualifier != "" {
		if !qualifierPattern.MatchString(in.Qualifier) {
			return nil, validationError(in.Qualifier, "qualifier", fmt.Errorf("%w: qualifier %q", ErrInvalidFunctionName, in.Qualifier))
		}
		if ref.Qualifier != "" && ref.Qualifier != in.Qualifier {
			return nil, NewServiceError(CodeInvalidParameterValue, mismatchedQualifierMessage)
		}
		ref.Qualifier = in.Qualifier
	}
	kind := in.InvocationType
	switch kind {
	case "":
		kind = RequestResponse
	case RequestResponse, Event, DryRun:
	default:
		return nil, NewServiceError(CodeValidation, fmt.Sprintf(
			"1 validation error detected: Value '%s' at 'invocationType' failed to satisfy constraint: Member must satisfy enum value set: [Event, RequestResponse, DryRun]", kind))
	}
	clientContext, err := decodeClientContext(in.ClientContext)
	if err != nil {
		return nil, &ServiceError{Code: CodeInvalidRequestContent, Message: invalidClientContextMessage, Err: err}
	}
	payload := in.Payload
	if len(payload) == 0 {
		payload = []byte("{}")
	}
	fn, ok := r.lookup(ref)
	if !ok {
		return nil, &ServiceError{
			Code: CodeResourceNotFound,
			Message: fmt.Sprintf("Function not found: %s (the emulator has no handler registered for function %q)",
				ref.ARN(), ref.Name),
			Err: ErrNotRegistered,
		}
	}
	inv := &invocation{fn: fn, arn: ref.ARN(), requestID: requestID, clientContext: clientContext, payload: payload}
	switch kind {
	case DryRun:
		return &InvokeOutput{StatusCode: http.StatusNoContent, RequestID: inv.requestID}, nil
	case Event:
		if err := r.enqueue(inv); err != nil {
			return nil, err
		}
		return &InvokeOutput{StatusCode: http.StatusAccepted, RequestID: inv.requestID}, nil
	}
	cfg, err := r.acquire(fn)
	if err != nil {
		return nil, err
	}
	res, err := r.runSync(ctx, inv, cfg)
	if err != nil {
		return nil, err
	}
	if res.serviceErr != nil {
		return nil, res.serviceErr
	}
	out := &InvokeOutput{StatusCode: http.StatusOK, ExecutedVersion: executedVersion(ref.Qualifier), Payload: res.payload, RequestID: inv.requestID}
	if res.failed {
		out.FunctionError = FunctionErrorUnhandled
	}
	return out, nil
}

// invocation is one accepted invocation of a function.
type invocation struct {
	fn            *function
	arn           string // as invoked, with its qualifier
	requestID     string
	clientContext lambdacontext.ClientContext
	payload       []byte
}

// validationError is Lambda's answer to a malformed parameter.
func validationError(value, member string, err error) *ServiceError {
	return &ServiceError{
		Code: CodeValidation,
		Message: fmt.Sprintf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: "+
			"Member must satisfy regular expression pattern: "+
			`(arn:(aws[a-zA-Z-]*)?:lambda:)?([a-z]{2}(-gov)?-[a-z]+-\d{1}:)?(\d{12}:)?(function:)?([a-zA-Z0-9-_\.]+)(:(\$LATEST|[a-zA-Z0-9-_]+))?`,
			value, member),
		Err: err,
	}
}

// decodeClientContext decodes the base64-encoded JSON client context of an invocation.
func decodeClientContext(s string) (lambdacontext.ClientContext, error) {
	var cc lambdacontext.ClientContext
	if s == "" {
		return cc, nil
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return cc, err
	}
	err = json.Unmarshal(raw, &cc)
	return cc, err
}

// executedVersion is the version Lambda reports for a qualifier: a version number runs that
// version; no qualifier, $LATEST and aliases (which the emulator points at $LATEST) run $LATEST.
func executedVersion(qualifier string) string {
	if qualifier != "" && strings.Trim(qualifier, "0123456789") == "" {
		return qualifier
	}
	return LatestVersion
}
