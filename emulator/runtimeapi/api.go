package runtimeapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

// APIVersion is the version of the Lambda Runtime API served, the first segment of its paths.
const APIVersion = "2018-06-01"

// Headers of the Runtime API.
const (
	HeaderRequestID          = "Lambda-Runtime-Aws-Request-Id"
	HeaderDeadlineMs         = "Lambda-Runtime-Deadline-Ms"
	HeaderInvokedFunctionARN = "Lambda-Runtime-Invoked-Function-Arn"
	HeaderTraceID            = "Lambda-Runtime-Trace-Id"
	HeaderClientContext      = "Lambda-Runtime-Client-Context"
	HeaderCognitoIdentity    = "Lambda-Runtime-Cognito-Identity"
	HeaderFunctionErrorType  = "Lambda-Runtime-Function-Error-Type"
)

// MaxResponseBytes is the largest response payload of a synchronous invocation Lambda accepts.
const MaxResponseBytes = 6291556

// routes serves the Runtime API of one instance.
func (in *instance) routes() http.Handler {
	mux := http.NewServeMux()
	base := "/" + APIVersion + "/runtime/"
	mux.HandleFunc("GET "+base+"invocation/next", in.serveNext)
	mux.HandleFunc("POST "+base+"invocation/{id}/response", in.serveResponse)
	mux.HandleFunc("POST "+base+"invocation/{id}/error", in.serveError)
	mux.HandleFunc("POST "+base+"init/error", in.serveInitError)
	return mux
}

// serveNext blocks until an invocation comes, and sends its payload and context headers.
func (in *instance) serveNext(w http.ResponseWriter, r *http.Request) {
	var inv *invocation
	select {
	case inv = <-in.next:
	case <-in.exited:
		return
	case <-r.Context().Done():
		return
	}
	in.mu.Lock()
	in.current, in.handedOut = inv, true
	in.mu.Unlock()
	h := w.Header()
	h.Set(HeaderRequestID, inv.requestID)
	h.Set(HeaderDeadlineMs, strconv.FormatInt(inv.deadline.UnixMilli(), 10))
	h.Set(HeaderInvokedFunctionARN, inv.functionARN)
	h.Set(HeaderTraceID, inv.traceID)
	if cc := inv.clientContext; cc.Client != (lambdacontext.ClientApplication{}) || cc.Env != nil || cc.Custom != nil {
		if b, err := json.Marshal(cc); err == nil {
			h.Set(HeaderClientContext, string(b))
		}
	}
	if id := inv.identity; id.CognitoIdentityID != "" || id.CognitoIdentityPoolID != "" {
		if b, err := json.Marshal(id); err == nil {
			h.Set(HeaderCognitoIdentity, string(b))
		}
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(inv.payload) //nolint:errcheck // a process that went away is seen by its watcher
}

// take returns the invocation id names and forgets it, or answers 400 when it is not the
// invocation under way.
func (in *instance) take(w http.ResponseWriter, id string) *invocation {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.current == nil || in.current.requestID != id {
		writeStatus(w, http.StatusBadRequest, "InvalidRequestID", "Invalid request ID: "+id)
		return nil
	}
	inv := in.current
	in.current = nil
	return inv
}

// serveResponse completes an invocation with the function's response.
func (in *instance) serveResponse(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes+1))
	if err != nil {
		return
	}
	inv := in.take(w, r.PathValue("id"))
	if inv == nil {
		return
	}
	// A response streamed by aws-lambda-go reports a failure while writing in trailers.
	if errType := r.Trailer.Get(HeaderFunctionErrorType); errType != "" {
		inv.done <- outcome{fnErr: &lambdafn.FunctionError{Type: errType, Message: r.Trailer.Get("Lambda-Runtime-Function-Error-Body")}}
		writeStatus(w, http.StatusAccepted, "", "")
		return
	}
	if len(body) > MaxResponseBytes {
		msg := "Response payload size exceeded maximum allowed payload size (" + strconv.Itoa(MaxResponseBytes) + " bytes)."
		inv.done <- outcome{fnErr: &lambdafn.FunctionError{Type: ErrorTypeResponseTooLarge, Message: msg}}
		writeStatus(w, http.StatusRequestEntityTooLarge, ErrorTypeResponseTooLarge, msg)
		return
	}
	inv.done <- outcome{payload: body}
	writeStatus(w, http.StatusAccepted, "", "")
}

// serveError completes an invocation with a function error.
func (in *instance) serveError(w http.ResponseWriter, r *http.Request) {
	fe, ok := readError(w, r)
	if !ok {
		return
	}
	inv := in.take(w, r.PathValue("id"))
	if inv == nil {
		return
	}
	inv.done <- outcome{fnErr: &fe}
	writeStatus(w, http.StatusAccepted, "", "")
}

// serveInitError records an initialisation error; the invocation that waits for the
// initialisation fails with it. Once an invocation was handed out it is too late (403).
func (in *instance) serveInitError(w http.ResponseWriter, r *http.Request) {
	fe, ok := readError(w, r)
	if !ok {
		return
	}
	in.mu.Lock()
	late := in.handedOut
	in.mu.Unlock()
	if late {
		writeStatus(w, http.StatusForbidden, "InvalidStateTransition", "State transition from Ready to InitError failed")
		return
	}
	select {
	case in.initErr <- fe:
	default: // one was posted already
	}
	writeStatus(w, http.StatusAccepted, "", "")
}

// readError decodes the error document a runtime posts: {"errorMessage", "errorType", ...}. The
// Lambda-Runtime-Function-Error-Type header names the type when the body does not; a body that
// is not such a document becomes the message.
func readError(w http.ResponseWriter, r *http.Request) (lambdafn.FunctionError, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes+1))
	if err != nil {
		return lambdafn.FunctionError{}, false
	}
	var fe lambdafn.FunctionError
	if json.Unmarshal(body, &fe) != nil || (fe.Type == "" && fe.Message == "") {
		fe = lambdafn.FunctionError{Message: string(body)}
	}
	if fe.Type == "" {
		fe.Type = r.Header.Get(HeaderFunctionErrorType)
	}
	if fe.Type == "" {
		fe.Type = "Runtime.Unknown"
	}
	return fe, true
}

// writeStatus answers the runtime: {"status":"OK"} for 202, an error document otherwise.
func writeStatus(w http.ResponseWriter, status int, errType, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if status == http.StatusAccepted {
		io.WriteString(w, `{"status":"OK"}`) //nolint:errcheck // nothing to do if the runtime went away
		return
	}
	b, _ := json.Marshal(struct {
		ErrorMessage string `json:"errorMessage"`
		ErrorType    string `json:"errorType"`
	}{msg, errType})
	w.Write(b) //nolint:errcheck // nothing to do if the runtime went away
}
