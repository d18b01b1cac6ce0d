package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

const (
	// bindAttempts bounds the retries when another process takes the chosen port first.
	bindAttempts = 5
	// stopGrace is how long Close waits after SIGTERM before it sends SIGKILL.
	stopGrace = 5 * time.Second
	// outputTail is how much of DynamoDB Local's output is kept for error messages.
	outputTail = 16 << 10
	// exitIODelay bounds the wait for DynamoDB Local's output pipes once it has exited.
	exitIODelay = time.Second
	// pollInterval is how often Start asks DynamoDB Local whether it answers yet.
	pollInterval = 25 * time.Millisecond
	// probeTimeout bounds one such question.
	probeTimeout = 2 * time.Second
)

// Server is a running DynamoDB Local process. Close it when done.
type Server struct {
	endpoint  string
	perAccess bool // started with Options.DatabasePerAccessKey
	proc      *process
	output    *tailBuffer

	closeOnce sync.Once
	closeErr  error
}

// Start launches DynamoDB Local in memory on a free port (or Options.Port) with the java command
// and returns once it answers DynamoDB API requests. ctx bounds the start only: the server runs
// until Close.
//
// Start returns an error wrapping ErrInvalidPort for a bad Options.Port, one wrapping
// ErrNotInstalled or ErrJavaMissing when the tooling is missing, and a *ProcessError (wrapping ErrExited, ErrStartTimeout, ErrPortInUse or ctx's error) when
// DynamoDB Local fails to start; no process is left behind either way.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("%w: got %d", ErrInvalidPort, opts.Port)
	}
	t, err := locateTools(opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.startTimeout(), ErrStartTimeout)
	defer cancel()
	if opts.Port != 0 {
		return launch(ctx, t, opts.Port, opts.DatabasePerAccessKey)
	}
	return startOnFreePort(ctx, t, freePort, opts.DatabasePerAccessKey)
}

// startOnFreePort launches DynamoDB Local on a port from pickPort, and on another one when the
// port is taken before DynamoDB Local binds it.
func startOnFreePort(ctx context.Context, t tools, pickPort func() (int, error), perAccessKey bool) (*Server, error) {
	for attempt := 1; ; attempt++ {
		port, err := pickPort()
		if err != nil {
			return nil, err
		}
		srv, err := launch(ctx, t, port, perAccessKey)
		if errors.Is(err, ErrPortInUse) && attempt < bindAttempts {
			continue
		}
		return srv, err
	}
}

// launch starts DynamoDB Local on port (with a database per access key and region when
// perAccessKey, else with -sharedDb) and waits until it answers, its process ends or fails to
// bind, or ctx is done.
func launch(ctx context.Context, t tools, port int, perAccessKey bool) (*Server, error) {
	args := []string{
		"-Djava.library.path=" + filepath.Join(t.dir, libDir),
		// The client (C1) compiler only: the optimizing compiler's threads cost more CPU than
		// they save over a simulation's requests, which follow one another under a skipping
		// clock. Measured on 2 cores: 2.0 s instead of 3.6 s of CPU to start, 10 s instead of
		// 15 s for the first 8,000 UpdateItems of a 13 KB item, and no slower per request after.
		"-XX:TieredStopAtLevel=1",
		// The serial collector: one thread and no concurrent marking, the least CPU for a heap
		// this small. Measured on 2 busy cores, 2,000 executions through a limit of 100:
		// 11.8 ms of DynamoDB Local's CPU per execution instead of 14.2 ms with the default
		// (G1). The optimizing compiler (no TieredStopAtLevel) cost 20.1 ms there.
		"-XX:+UseSerialGC",
		"-jar", t.jar(),
		"-inMemory",
		"-disableTelemetry",
		"-port", strconv.Itoa(port),
	}
	if !perAccessKey {
		// One database for every access key and region, as one account's tables are. Without
		// it, DynamoDB Local 1.25.1 keeps a database per access key ID and region, in memory too
		// (checked: a table one key creates is absent for another key or region).
		args = append(args, "-sharedDb")
	}
	cmd := exec.Command(t.java, args...)
	cmd.Dir = t.dir
	s := &Server{
		endpoint:  "http://" + net.JoinHostPort(loopbackHost, strconv.Itoa(port)),
		perAccess: perAccessKey,
		output:    newTailBuffer(outputTail),
	}
	cmd.Stdout = s.output
	cmd.Stderr = s.output
	cmd.WaitDelay = exitIODelay
	proc, err := spawn(cmd)
	if err != nil {
		return nil, fmt.Errorf("ddblocal: start %s: %w", t.java, err)
	}
	s.proc = proc
	if err := s.waitUntilAnswering(ctx, port); err != nil {
		proc.stop(stopGrace)
		return nil, s.failure(err)
	}
	return s, nil
}

// waitUntilAnswering polls the server with ListTables until it answers from the process's own
// socket on port, and returns the reason to give up otherwise: ErrExited, ErrPortInUse or ctx's
// cause.
func (s *Server) waitUntilAnswering(ctx context.Context, port int) error {
	client, err := NewClient(context.WithoutCancel(ctx), s.endpoint, func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	if err != nil {
		return err
	}
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		probeCtx, cancel := context.WithTimeout(ctx, probeTimeout)
		_, err := client.ListTables(probeCtx, &dynamodb.ListTablesInput{})
		cancel()
		if err == nil {
			own, err := listensOn(s.proc.cmd.Process.Pid, port)
			if err != nil || !own {
				return errors.Join(ErrPortInUse, err)
			}
			return nil
		}
		if s.output.Contains(bindFailure) {
			return ErrPortInUse
		}
		select {
		case <-s.proc.exited:
			return ErrExited
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-ticker.C:
		}
	}
}

// failure describes why the process failed, with its exit status once it has ended.
func (s *Server) failure(reason error) *ProcessError {
	e := &ProcessError{Reason: reason, Output: s.output.String()}
	if !s.proc.running() {
		e.Exit = s.proc.waitErr
	}
	return e
}

// DatabasePerAccessKey reports whether the server keeps a database per access key ID and region
// (Options.DatabasePerAccessKey).
func (s *Server) DatabasePerAccessKey() bool { return s.perAccess }

// Endpoint returns the server's base URL, e.g. "http://127.0.0.1:43127".
func (s *Server) Endpoint() string { return s.endpoint }

// Close stops DynamoDB Local and any children it started (SIGTERM to its process group, SIGKILL
// after a grace period) and waits for it to end. It returns a *ProcessError wrapping ErrExited if
// the server had already died. Calling Close again returns the same result.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if !s.proc.running() {
			s.closeErr = s.failure(ErrExited)
			return
		}
		s.proc.stop(stopGrace)
	})
	return s.closeErr
}
