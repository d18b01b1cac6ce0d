package sfnapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
)

// The AWS JSON 1.0 protocol of Step Functions.
const (
	targetHeader  = "X-Amz-Target"
	targetPrefix  = "AWSStepFunctions."
	contentType   = "application/x-amz-json-1.0"
	maxBodyBytes  = 4 << 20 // well above the largest valid request (256 KiB of input, escaped)
	requestHeader = "x-amzn-RequestId"
	errorHeader   = "X-Amzn-ErrorType"
)

// operation decodes, validates and carries out one API operation.
type operation func(ctx context.Context, b Backend, body []byte) (any, error)

// handle builds the operation that decodes the request into In, validates it, calls the
// backend and lets finish adjust the response (finish may be nil).
func handle[In any, Out any, PIn interface {
	*In
	request
}](call func(Backend, context.Context, *In) (*Out, error), finish func(*In, *Out)) operation {
	return func(ctx context.Context, b Backend, body []byte) (any, error) {
		in := PIn(new(In))
		if err := decodeRequest(body, in); err != nil {
			return nil, err
		}
		if err := in.validate(); err != nil {
			return nil, err
		}
		out, err := call(b, ctx, in)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = new(Out)
		}
		if finish != nil {
			finish(in, out)
		}
		return out, nil
	}
}

// operations are the operations the server exposes, by name.
var operations = map[string]operation{
	"StartExecution": handle(Backend.StartExecution, nil),
	"DescribeExecution": handle(Backend.DescribeExecution, func(in *DescribeExecutionInput, out *DescribeExecutionOutput) {
		if in.IncludedData == IncludeMetadataOnly {
			out.Input, out.Output = "", ""
		}
	}),
	"ListExecutions": handle(Backend.ListExecutions, func(_ *ListExecutionsInput, out *ListExecutionsOutput) {
		if out.Executions == nil {
			out.Executions = []ExecutionListItem{}
		}
	}),
	"GetExecutionHistory": handle(Backend.GetExecutionHistory, func(in *GetExecutionHistoryInput, out *GetExecutionHistoryOutput) {
		if out.Events == nil {
			out.Events = []HistoryEvent{}
		}
		if !in.IncludesExecutionData() {
			events := make([]HistoryEvent, len(out.Events))
			for i, e := range out.Events {
				events[i] = e.withoutExecutionData()
			}
			out.Events = events
		}
	}),
	"StopExecution":        handle(Backend.StopExecution, nil),
	"RedriveExecution":     handle(Backend.RedriveExecution, nil),
	"SendTaskSuccess":      handle(Backend.SendTaskSuccess, nil),
	"SendTaskFailure":      handle(Backend.SendTaskFailure, nil),
	"SendTaskHeartbeat":    handle(Backend.SendTaskHeartbeat, nil),
	"DescribeStateMachine": handle(Backend.DescribeStateMachine, nil),
	"ListStateMachines": handle(Backend.ListStateMachines, func(_ *ListStateMachinesInput, out *ListStateMachinesOutput) {
		if out.StateMachines == nil {
			out.StateMachines = []StateMachineListItem{}
		}
	}),
}

// NewHandler returns the http.Handler that serves the Step Functions API over backend:
// POST requests whose X-Amz-Target header is "AWSStepFunctions.<Operation>" and whose body is
// the operation's JSON request. Request signatures are accepted without being verified.
func NewHandler(backend Backend) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(requestHeader, requestID())
		target := r.Header.Get(targetHeader)
		name, ok := strings.CutPrefix(target, targetPrefix)
		op, known := operations[name]
		if r.Method != http.MethodPost || !ok || !known {
			writeError(w, NewAPIError(CodeUnknownOperation, "Unknown operation: %q", target))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				writeError(w, NewAPIError(CodeRequestTooLarge, "Request must be smaller than %d bytes", maxBodyBytes))
				return
			}
			writeError(w, NewAPIError(CodeSerialization, "cannot read the request body: %v", err))
			return
		}
		out, err := op(r.Context(), backend, body)
		if err != nil {
			writeError(w, asAPIError(err))
			return
		}
		writeJSON(w, http.StatusOK, out)
	})
}

// decodeRequest decodes a request body; an empty body is an empty request.
func decodeRequest(body []byte, in any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(in); err != nil {
		return NewAPIError(CodeSerialization, "cannot decode the request: %v", err)
	}
	if dec.More() {
		return NewAPIError(CodeSerialization, "cannot decode the request: data after the JSON object")
	}
	return nil
}

// writeError answers with an error in AWS's JSON error shape.
func writeError(w http.ResponseWriter, e *APIError) {
	w.Header().Set(errorHeader, string(e.Code))
	body := struct {
		Type    ErrorCode `json:"__type"`
		Message string    `json:"message"`
		Reason  string    `json:"reason,omitempty"`
	}{e.Code, e.Message, e.Reason}
	writeJSON(w, e.HTTPStatus(), body)
}

// writeJSON answers with a JSON document.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		// Only a response can fail to encode; the error document cannot, so this ends.
		writeError(w, &APIError{Code: CodeInternalFailure, Message: "cannot encode the response: " + err.Error(), Err: err})
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client is gone when this fails; nothing is left to tell it
}

// requestID returns a random (version 4) UUID for the x-amzn-RequestId header.
func requestID() string {
	hi, lo := rand.Uint64(), rand.Uint64()
	hi = hi&^0xf000 | 0x4000
	lo = lo&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}
