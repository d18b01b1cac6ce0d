package lambdafn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"

	"github.com/turnstile-sfn/turnstile/asl"
)

// Errors a Task reports when Lambda returns something Step Functions cannot name.
const (
	// ErrorUnknown is the error of a function that failed without an errorType, such as one
	// that timed out.
	ErrorUnknown = "Lambda.Unknown"
	// unknownCausePrefix starts the cause of ErrorUnknown, followed by Lambda's payload.
	unknownCausePrefix = "The cause could not be determined because Lambda did not return an error type. Returned payload: "
)

// invokeResourcePattern matches the optimized integration's resources, with or without the
// callback pattern; the core waits for the task token itself.
var invokeResourcePattern = regexp.MustCompile(`^arn:aws[a-zA-Z-]*:states:::lambda:invoke(\.waitForTaskToken)?$`)

// Integration runs Step Functions Task states whose Resource is Lambda: the optimized
// "arn:aws:states:::lambda:invoke" (and its ".waitForTaskToken" form), and a plain function ARN
// "arn:aws:lambda:…:function:name". Values are generic JSON values (map[string]any, []any,
// string, bool, nil, int64, float64).
type Integration struct {
	registry *Registry
}

// NewIntegration returns the Integration that invokes the functions of r.
func NewIntegration(r *Registry) *Integration {
	return &Integration{registry: r}
}

// Supports reports whether resource is a Lambda Task resource this integration runs.
func (i *Integration) Supports(resource string) bool {
	if invokeResourcePattern.MatchString(resource) {
		return true
	}
	ref, err := ParseFunctionName(resource)
	return err == nil && ref.IsFullARN()
}

// Invoke runs the Task. For lambda:invoke, params are the Task's effective Parameters
// (FunctionName, Payload, InvocationType, Qualifier, ClientContext, LogType) and the result is
// Lambda's response as Step Functions returns it:
//
//	{"ExecutedVersion":"$LATEST","Payload":<the function's JSON result>,
//	 "SdkHttpMetadata":{"AllHttpHeaders":{…},"HttpHeaders":{…},"HttpStatusCode":200},
//	 "SdkResponseMetadata":{"RequestId":"…"},"StatusCode":200}
//
// For a plain function ARN, params are the whole payload and the result is the function's
// JSON result itself. A payload that is not JSON is returned as a string.
//
// Failures are *asl.Error with the names Step Functions reports, the same for both resources:
// a function error is named by its errorType with the error document as cause; a function
// error without errorType (a timeout) is "Lambda.Unknown"; a Lambda service error is
// "Lambda.<code>" (e.g. "Lambda.TooManyRequestsException") with the AWS SDK's rendering as
// cause; bad parameters are "States.Runtime". The context's error is returned as it is.
func (i *Integration) Invoke(ctx context.Context, resource string, params any) (any, error) {
	var (
		in      *InvokeInput
		wrapped bool
		err     error
	)
	if invokeResourcePattern.MatchString(resource) {
		in, err = invokeParameters(params)
		wrapped = true
	} else {
		in, err = plainParameters(resource, params)
	}
	if err != nil {
		return nil, err
	}
	out, err := i.registry.Invoke(ctx, in)
	var se *ServiceError
	switch {
	case errors.As(err, &se):
		return nil, asl.NewError(se.StatesErrorName(), se.StatesCause())
	case err != nil:
		return nil, err
	case out.FunctionError != "":
		return nil, functionFailure(out.Payload)
	}
	payload := decodePayload(out.Payload)
	if !wrapped {
		return payload, nil
	}
	return i.registry.responseDocument(out, payload), nil
}

// invokeParameters reads the Parameters of a lambda:invoke Task.
func invokeParameters(params any) (*InvokeInput, error) {
	fields, ok := params.(map[string]any)
	if !ok {
		return nil, asl.NewError(asl.ErrorRuntime, fmt.Sprintf("the Parameters of lambda:invoke must be an object, got %s", describe(params)))
	}
	in := &InvokeInput{}
	stringFields := map[string]*string{"FunctionName": &in.FunctionName, "Qualifier": &in.Qualifier, "ClientContext": &in.ClientContext, "LogType": nil}
	for _, key := range sortedKeys(fields) {
		value := fields[key]
		switch key {
		case "Payload":
			payload, err := encodeJSON(value)
			if err != nil {
				return nil, asl.NewError(asl.ErrorRuntime, fmt.Sprintf("the lambda:invoke Payload cannot be encoded: %v", err))
			}
			in.Payload = payload
		case "InvocationType":
			s, ok := value.(string)
			if !ok {
				return nil, parameterTypeError(key, value)
			}
			in.InvocationType = InvocationType(s)
		default:
			dst, known := stringFields[key]
			if !known {
				return nil, asl.NewError(asl.ErrorRuntime, fmt.Sprintf("the field '%s' is not supported by Step Functions for lambda:invoke", key))
			}
			s, ok := value.(string)
			if !ok {
				return nil, parameterTypeError(key, value)
			}
			if dst != nil {
				*dst = s
			}
		}
	}
	if in.FunctionName == "" {
		return nil, asl.NewError(asl.ErrorRuntime, "the lambda:invoke parameter 'FunctionName' is required")
	}
	return in, nil
}

// plainParameters makes the Invoke request of a Task whose Resource is a function ARN: the
// whole effective input is the payload.
func plainParameters(resource string, params any) (*InvokeInput, error) {
	payload, err := encodeJSON(params)
	if err != nil {
		return nil, asl.NewError(asl.ErrorRuntime, fmt.Sprintf("the input of %s cannot be encoded: %v", resource, err))
	}
	return &InvokeInput{FunctionName: resource, Payload: payload}, nil
}

// functionFailure names a function error the way Step Functions does: by the errorType of the
// error document, with the document as cause; Lambda.Unknown when there is no errorType.
func functionFailure(doc []byte) *asl.Error {
	var fe struct {
		ErrorType string `json:"errorType"`
	}
	if json.Unmarshal(doc, &fe) != nil || fe.ErrorType == "" {
		return asl.NewError(ErrorUnknown, unknownCausePrefix+string(doc))
	}
	return asl.NewError(fe.ErrorType, string(doc))
}

// decodePayload turns a response payload into a JSON value: an empty payload is null and one
// that is not JSON stays a string.
func decodePayload(payload []byte) any {
	if len(bytes.TrimSpace(payload)) == 0 {
		return nil
	}
	v, err := asl.DecodeValue(payload)
	if err != nil {
		return string(payload)
	}
	return v
}

// encodeJSON encodes a JSON value as Step Functions sends it, without escaping HTML characters.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func parameterTypeError(key string, value any) *asl.Error {
	return asl.NewError(asl.ErrorRuntime, fmt.Sprintf("the lambda:invoke parameter '%s' must be a string, got %s", key, describe(value)))
}

// describe names the JSON type of a value for error messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
