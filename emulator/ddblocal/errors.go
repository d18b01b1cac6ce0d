package ddblocal

import (
	"errors"
	"fmt"
	"strings"
)

// ErrExited reports that the DynamoDB Local process exited on its own: before it answered (from
// Start) or while it was serving (from Close).
var ErrExited = errors.New("ddblocal: the process exited")

// ErrStartTimeout reports that DynamoDB Local did not answer within Options.StartTimeout.
var ErrStartTimeout = errors.New("ddblocal: the server did not answer in time")

// ErrInvalidPort reports an Options.Port that is not a TCP port.
var ErrInvalidPort = errors.New("ddblocal: Port must be a TCP port from 1 to 65535, or 0 for a free one")

// ErrPortInUse reports that DynamoDB Local could not bind its port: another process took it.
// Start tries other ports before it gives up with this error.
var ErrPortInUse = errors.New("ddblocal: the port was taken before DynamoDB Local bound it")

// bindFailure is what the JVM prints when DynamoDB Local cannot bind its port. The process does
// not exit then: Start stops it.
const bindFailure = "Address already in use"

// ProcessError is a failure of the DynamoDB Local process, with the end of its output.
type ProcessError struct {
	// Reason is ErrExited, ErrStartTimeout, ErrPortInUse, or the error of the context given to
	// Start.
	Reason error
	// Exit is how the process ended (an *exec.ExitError), or nil while it still ran.
	Exit error
	// Output is the end of what DynamoDB Local wrote to stdout and stderr.
	Output string
}

// Error describes the failure, the process's exit status and its output.
func (e *ProcessError) Error() string {
	var b strings.Builder
	b.WriteString(e.Reason.Error())
	if e.Exit != nil {
		fmt.Fprintf(&b, " (%v)", e.Exit)
	}
	if out := strings.TrimSpace(e.Output); out != "" {
		fmt.Fprintf(&b, "; output:\n%s", out)
	}
	return b.String()
}

// Unwrap returns the reason and the exit error, for errors.Is and errors.As.
func (e *ProcessError) Unwrap() []error {
	if e.Exit == nil {
		return []error{e.Reason}
	}
	return []error{e.Reason, e.Exit}
}
