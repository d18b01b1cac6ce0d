package runtimeapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

// instance is one execution environment: a bootstrap process and the Runtime API it talks to.
type instance struct {
	fn     *Function
	ln     net.Listener
	srv    *http.Server
	cmd    *exec.Cmd
	stdout *lineWriter
	stderr *lineWriter

	next    chan *invocation // the /next handler takes invocations from here
	initErr chan lambdafn.FunctionError
	exited  chan struct{} // closed once the process has exited and been waited for
	exitErr error         // how it exited; read after exited is closed
	served  bool          // it has taken an invocation; only the invoking goroutine uses it

	mu        sync.Mutex
	current   *invocation // handed out by /next, not yet answered
	handedOut bool        // /next has handed out an invocation: initialisation is over
}

// invocation is one invocation as the Runtime API presents it.
type invocation struct {
	requestID     string
	functionARN   string
	deadline      time.Time
	traceID       string
	clientContext lambdacontext.ClientContext
	identity      lambdacontext.CognitoIdentity
	payload       []byte
	done          chan outcome // the runtime's answer
}

// outcome is how the runtime answered an invocation.
type outcome struct {
	payload []byte
	fnErr   *lambdafn.FunctionError
}

// start starts a new instance in a slot the caller took, and frees the slot when it fails.
func (f *Function) start() (_ *instance, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		<-f.slots
		return nil, fmt.Errorf("runtimeapi: listen for the Runtime API of %s: %w", f.cfg.FunctionName, err)
	}
	in := &instance{
		fn: f, ln: ln,
		next:    make(chan *invocation),
		initErr: make(chan lambdafn.FunctionError, 1),
		exited:  make(chan struct{}),
	}
	in.srv = &http.Server{Handler: in.routes(), ReadHeaderTimeout: 10 * time.Second}
	go in.srv.Serve(ln) //nolint:errcheck // returns http.ErrServerClosed once the process exits

	prefix := "[" + f.cfg.FunctionName + "] "
	in.stdout, in.stderr = &lineWriter{out: f.log, prefix: prefix}, &lineWriter{out: f.log, prefix: prefix}
	in.cmd = exec.Command(f.cfg.Binary)
	in.cmd.Dir = filepath.Dir(f.cfg.Binary)
	in.cmd.Env = f.environment(ln.Addr().String())
	in.cmd.Stdout, in.cmd.Stderr = in.stdout, in.stderr
	in.cmd.WaitDelay = time.Second
	setProcessGroup(in.cmd)

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		in.srv.Close()
		<-f.slots
		return nil, ErrClosed
	}
	if err := in.cmd.Start(); err != nil {
		in.srv.Close()
		<-f.slots
		return nil, fmt.Errorf("runtimeapi: start %s: %w", f.cfg.Binary, err)
	}
	f.all[in] = struct{}{}
	f.started++
	f.watchers.Add(1)
	go in.watch()
	return in, nil
}

// watch waits for the process to exit, then closes the Runtime API and gives the slot back.
func (in *instance) watch() {
	defer in.fn.watchers.Done()
	in.exitErr = in.cmd.Wait()
	in.stdout.flush()
	in.stderr.flush()
	close(in.exited)
	in.srv.Close()
	in.fn.remove(in)
}

// kill ends the process and every process it started.
func (in *instance) kill() { killProcessGroup(in.cmd) }

// discard kills the instance and waits until it is gone from the pool.
func (in *instance) discard() {
	in.kill()
	<-in.exited
}

// invoke hands inv to the process and waits for its answer. retry reports that the process
// exited before it took inv, after serving earlier invocations: inv can go to another instance.
func (in *instance) invoke(ctx context.Context, inv *invocation) (payload []byte, retry bool, err error) {
	select {
	case in.next <- inv:
		in.served = true
	case fe := <-in.initErr:
		in.discard()
		return nil, false, fe
	case <-in.exited:
		if fe, ok := in.postedInitError(); ok {
			return nil, false, fe
		}
		if in.fn.isClosed() {
			return nil, false, ErrClosed
		}
		if in.served {
			return nil, true, nil
		}
		// The process died during its initialisation, which ran for this invocation.
		return nil, false, in.exitError(inv)
	case <-ctx.Done():
		in.discard()
		return nil, false, ctx.Err()
	}
	select {
	case o := <-inv.done:
		in.fn.release(in)
		if o.fnErr != nil {
			return nil, false, *o.fnErr
		}
		return o.payload, false, nil
	case <-in.exited:
		select {
		case o := <-inv.done: // answered, then exited (after a panic)
			if o.fnErr != nil {
				return nil, false, *o.fnErr
			}
			return o.payload, false, nil
		default:
		}
		if in.fn.isClosed() {
			return nil, false, ErrClosed
		}
		return nil, false, in.exitError(inv)
	case <-ctx.Done():
		in.discard()
		return nil, false, ctx.Err()
	}
}

// postedInitError returns the error the runtime posted to /runtime/init/error, if it did.
func (in *instance) postedInitError() (lambdafn.FunctionError, bool) {
	select {
	case fe := <-in.initErr:
		return fe, true
	default:
		return lambdafn.FunctionError{}, false
	}
}

// Error types Lambda reports for failures of the runtime rather than of the handler.
const (
	// ErrorTypeExit is the error type of an invocation whose runtime process exited.
	ErrorTypeExit = "Runtime.ExitError"
	// ErrorTypeResponseTooLarge is the error type of a response larger than Lambda accepts.
	ErrorTypeResponseTooLarge = "Function.ResponseSizeTooLarge"
)

// exitError is the function error Lambda reports when the runtime process exits during an
// invocation (or during the initialisation that ran for it).
func (in *instance) exitError(inv *invocation) lambdafn.FunctionError {
	reason := "Runtime exited without providing a reason"
	var ee *exec.ExitError
	if errors.As(in.exitErr, &ee) {
		reason = "Runtime exited with error: " + ee.ProcessState.String()
	}
	return lambdafn.FunctionError{Type: ErrorTypeExit, Message: fmt.Sprintf("RequestId: %s Error: %s", inv.requestID, reason)}
}
