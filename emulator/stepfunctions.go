package emulator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// Resources of the built-in Step Functions integration.
const (
	resourceStartExecution = "arn:aws:states:::states:startExecution"
	resourceSDKPrefix      = "arn:aws:states:::aws-sdk:sfn:"
)

// stepFunctionsIntegration runs Task states against the emulator itself: the optimized
// states:startExecution (request-response, ".sync", ".sync:2") and the AWS SDK integration
// aws-sdk:sfn:* for startExecution, describeExecution, stopExecution and sendTask*.
type stepFunctionsIntegration struct{ em *Emulator }

// sdkActions are the aws-sdk:sfn actions the integration supports.
var sdkActions = map[string]bool{
	"startExecution": true, "describeExecution": true, "stopExecution": true,
	"sendTaskSuccess": true, "sendTaskFailure": true, "sendTaskHeartbeat": true,
}

// Supports reports whether the resource is states:startExecution (any pattern) or a supported
// aws-sdk:sfn action (request-response).
func (i *stepFunctionsIntegration) Supports(resource string) bool {
	base, pattern := splitPattern(resource)
	if base == resourceStartExecution {
		return true
	}
	action, ok := strings.CutPrefix(base, resourceSDKPrefix)
	return ok && pattern == PatternRequestResponse && sdkActions[action]
}

// Invoke runs the optimized startExecution or an aws-sdk:sfn action.
func (i *stepFunctionsIntegration) Invoke(ctx context.Context, call *TaskCall) (any, error) {
	params, _ := call.Parameters.(map[string]any)
	if call.Resource == resourceStartExecution {
		return i.startExecution(ctx, call, params)
	}
	action := strings.TrimPrefix(call.Resource, resourceSDKPrefix)
	out, err := i.sdkCall(ctx, action, params)
	if err != nil {
		return nil, i.sdkError(err)
	}
	return out, nil
}

// startExecution runs the optimized integration: start a child execution and, for ".sync" and
// ".sync:2", wait for it.
func (i *stepFunctionsIntegration) startExecution(ctx context.Context, call *TaskCall, params map[string]any) (any, error) {
	input := "{}"
	switch v := params["Input"].(type) {
	case nil:
	case string:
		input = v
	default:
		input = encodeJSON(v)
	}
	arn, _ := params["StateMachineArn"].(string)
	name, _ := params["Name"].(string)
	started, err := i.em.StartExecution(ctx, arn, name, input)
	if err != nil {
		return nil, i.optimizedError(err)
	}
	if call.Pattern != PatternSync && call.Pattern != PatternSync2 {
		return map[string]any{"ExecutionArn": started.ExecutionArn, "StartDate": epochMillis(started.StartDate)}, nil
	}
	done, err := i.em.awaitEnd(ctx, started.ExecutionArn)
	if err != nil {
		// The parent task timed out or stopped: the child is stopped with it.
		_, _ = i.em.StopExecution(context.Background(), started.ExecutionArn, "States.Aborted", "The parent execution's task ended")
		return nil, err
	}
	out := describeOutput(done, call.Pattern == PatternSync2)
	if done.Status != StatusSucceeded {
		return nil, asl.NewError(asl.ErrorTaskFailed, encodeJSON(out))
	}
	return out, nil
}

// optimizedError turns an API error into the error the optimized integration reports, e.g.
// StepFunctions.ExecutionAlreadyExistsException.
func (i *stepFunctionsIntegration) optimizedError(err error) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	return asl.NewError("StepFunctions."+exceptionName(apiErr.Code),
		fmt.Sprintf("%s (Service: AWSStepFunctions; Status Code: 400; Error Code: %s; Request ID: %s; Proxy: null)",
			apiErr.Message, apiErr.Code, i.em.newUUID()))
}

// sdkError turns an API error into the error the AWS SDK integration reports, e.g.
// Sfn.ExecutionDoesNotExistException.
func (i *stepFunctionsIntegration) sdkError(err error) error {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return err
	}
	return asl.NewError("Sfn."+exceptionName(apiErr.Code),
		fmt.Sprintf("%s (Service: Sfn, Status Code: 400, Request ID: %s)", apiErr.Message, i.em.newUUID()))
}

// exceptionName appends "Exception" to an error code that lacks it.
func exceptionName(code string) string {
	if strings.HasSuffix(code, "Exception") {
		return code
	}
	return code + "Exception"
}

// sdkCall runs one aws-sdk:sfn action with PascalCase parameters and results.
func (i *stepFunctionsIntegration) sdkCall(ctx context.Context, action string, params map[string]any) (any, error) {
	str := func(key string) string { s, _ := params[key].(string); return s }
	em := i.em
	switch action {
	case "startExecution":
		started, err := em.StartExecution(ctx, str("StateMachineArn"), str("Name"), str("Input"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"ExecutionArn": started.ExecutionArn, "StartDate": epochMillis(started.StartDate)}, nil
	case "describeExecution":
		d, err := em.DescribeExecution(ctx, str("ExecutionArn"))
		if err != nil {
			return nil, err
		}
		return describeOutput(d, false), nil
	case "stopExecution":
		stop, err := em.StopExecution(ctx, str("ExecutionArn"), str("Error"), str("Cause"))
		if err != nil {
			return nil, err
		}
		return map[string]any{"StopDate": epochMillis(stop)}, nil
	case "sendTaskSuccess":
		return map[string]any{}, em.SendTaskSuccess(ctx, str("TaskToken"), str("Output"))
	case "sendTaskFailure":
		return map[string]any{}, em.SendTaskFailure(ctx, str("TaskToken"), str("Error"), str("Cause"))
	default: // sendTaskHeartbeat
		return map[string]any{}, em.SendTaskHeartbeat(ctx, str("TaskToken"))
	}
}

// describeOutput renders a DescribeExecution response with the PascalCase keys of Step Functions'
// integrations. With jsonPayloads (".sync:2") Input and Output are JSON values rather than text.
func describeOutput(d ExecutionDescription, jsonPayloads bool) map[string]any {
	payload := func(s string) any {
		if jsonPayloads {
			if v, err := jsonvalue.Decode([]byte(s)); err == nil {
				return v
			}
		}
		return s
	}
	out := map[string]any{
		"ExecutionArn":    d.ExecutionArn,
		"StateMachineArn": d.StateMachineArn,
		"Name":            d.Name,
		"Status":          string(d.Status),
		"StartDate":       epochMillis(d.StartDate),
		"Input":           payload(d.Input),
		"InputDetails":    map[string]any{"Included": true},
		"RedriveCount":    int64(d.RedriveCount),
		"RedriveStatus":   d.RedriveStatus,
	}
	if d.RedriveStatusReason != "" {
		out["RedriveStatusReason"] = d.RedriveStatusReason
	}
	if d.StopDate != nil {
		out["StopDate"] = epochMillis(*d.StopDate)
	}
	if d.Output != nil {
		out["Output"] = payload(*d.Output)
		out["OutputDetails"] = map[string]any{"Included": true}
	}
	if d.Error != nil {
		out["Error"] = *d.Error
	}
	if d.Cause != nil {
		out["Cause"] = *d.Cause
	}
	if d.RedriveDate != nil {
		out["RedriveDate"] = epochMillis(*d.RedriveDate)
	}
	return out
}

// epochMillis renders a date as Step Functions' integrations do: milliseconds since the epoch.
func epochMillis(t time.Time) int64 { return t.UnixMilli() }
