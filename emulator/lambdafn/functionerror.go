package lambdafn

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"runtime"
	"strings"

	"github.com/aws/aws-lambda-go/lambda/messages"
)

// FunctionError is the error document a function invocation fails with, as Lambda returns it
// in the response payload: {"errorMessage":…,"errorType":…[,"stackTrace":[…]]}.
type FunctionError = messages.InvokeResponse_Error

// functionErrorFor renders an error a handler returned the way aws-lambda-go's runtime does: a
// messages.InvokeResponse_Error as it is, any other error with its message and the name of its
// dynamic type (the pointed-to type for a pointer), e.g. "errorString" for errors.New.
func functionErrorFor(err error) FunctionError {
	if fe, ok := err.(messages.InvokeResponse_Error); ok {
		return fe
	}
	return FunctionError{Message: err.Error(), Type: typeName(err)}
}

// functionErrorForPanic renders a recovered panic the way aws-lambda-go's runtime does: the
// panic value printed with %v, the name of its type, and the stack of the panicking goroutine.
func functionErrorForPanic(value any, stack []uintptr) FunctionError {
	if fe, ok := value.(messages.InvokeResponse_Error); ok {
		return fe
	}
	return FunctionError{Message: fmt.Sprintf("%v", value), Type: typeName(value), StackTrace: stackFrames(stack)}
}

// typeName is the name of v's dynamic type, dereferencing one level of pointer.
func typeName(v any) string {
	t := reflect.TypeOf(v)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}

// stackFrames turns program counters into the frames Lambda shows: the file as package
// directory and name, the line, and the function name without its package path.
func stackFrames(pcs []uintptr) []*messages.InvokeResponse_Error_StackFrame {
	frames := runtime.CallersFrames(pcs)
	var out []*messages.InvokeResponse_Error_StackFrame
	for {
		f, more := frames.Next()
		out = append(out, &messages.InvokeResponse_Error_StackFrame{
			Path:  path.Join(path.Base(path.Dir(f.File)), path.Base(f.File)),
			Line:  int32(f.Line),
			Label: f.Function[strings.LastIndex(f.Function, "/")+1:],
		})
		if !more {
			return out
		}
	}
}

// marshalFunctionError encodes the error document. A message that is not valid UTF-8 is
// replaced, as encoding/json does, so encoding cannot fail.
func marshalFunctionError(fe FunctionError) []byte {
	b, err := json.Marshal(fe)
	if err != nil {
		b, _ = json.Marshal(FunctionError{Message: err.Error(), Type: "Runtime.SerializationError"})
	}
	return b
}
