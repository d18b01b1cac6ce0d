package dynalite

import (
	"errors"
	"fmt"
	"strings"
)

// ErrExited reports that the dynalite process exited on its own: before it answered (from Start)
// or while it was serving (from Close).
var ErrExited = errors.New("dynalite: the process exited")

// ErrStartTimeout reports that dynalite did not answer within Options.StartTimeout.
var ErrStartTimeout = errors.New("dynalite: the server did not answer in time")

// ProcessError is a failure of the dynalite process, with what it wrote to stderr.
type ProcessError struct {
	// Reason is ErrExited, ErrStartTimeout, or the error of the context given to Start.
	Reason error
	// Exit is how the process ended (an *exec.ExitError), or nil while it still ran.
	Exit error
	// Stderr is the end of what dynalite wrote to stderr.
	Stderr string
}

// Error describes the failure, the process's exit status and its stderr.
func (e *ProcessError) Error() string {
	var b strings.Builder
	b.WriteString(e.Reason.Error())
	if e.Exit != nil {
		fmt.Fprintf(&b, " (%v)", e.Exit)
	}
	if stderr := strings.TrimSpace(e.Stderr); stderr != "" {
		fmt.Fprintf(&b, "; stderr:\n%s", stderr)
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

// addressInUse reports whether dynalite failed because its port was taken meanwhile.
func (e *ProcessError) addressInUse() bool {
	return strings.Contains(e.Stderr, "EADDRINUSE")
}
