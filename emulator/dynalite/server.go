package dynalite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	// readyLine starts the line dynalite prints on stdout once it listens.
	readyLine = "Dynalite listening at:"
	// bindAttempts bounds the retries when another process takes the chosen port first.
	bindAttempts = 5
	// stopGrace is how long Close waits after SIGTERM before it sends SIGKILL.
	stopGrace = 5 * time.Second
	// stderrTail is how much of dynalite's stderr is kept for error messages.
	stderrTail = 8 << 10
	// exitIODelay bounds the wait for dynalite's output pipes once it has exited.
	exitIODelay = time.Second
)

// Server is a running dynalite process. Close it when done.
type Server struct {
	endpoint string
	proc     *process
	stderr   *tailBuffer

	closeOnce sync.Once
	closeErr  error
}

// Start launches dynalite in memory on a free 127.0.0.1 port with the pinned Node runtime and
// returns once it answers HTTP requests. ctx bounds the start only: the server runs until Close.
//
// Start returns an error wrapping ErrNotInstalled when the tooling is missing, and a
// *ProcessError (wrapping ErrExited, ErrStartTimeout or ctx's error) when dynalite fails to
// start; no process is left behind either way.
func Start(ctx context.Context, opts Options) (*Server, error) {
	t, err := locateTools(opts.ToolsDir)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, opts.startTimeout(), ErrStartTimeout)
	defer cancel()
	return startOnFreePort(ctx, t, freePort)
}

// startOnFreePort launches dynalite on a port from pickPort, and on another one when the port is
// taken before dynalite binds it.
func startOnFreePort(ctx context.Context, t tools, pickPort func() (int, error)) (*Server, error) {
	for attempt := 1; ; attempt++ {
		port, err := pickPort()
		if err != nil {
			return nil, err
		}
		srv, err := launch(ctx, t, port)
		var perr *ProcessError
		if err != nil && errors.As(err, &perr) && perr.addressInUse() && attempt < bindAttempts {
			continue
		}
		return srv, err
	}
}

// launch starts dynalite on port and waits until it answers, its process ends, or ctx is done.
func launch(ctx context.Context, t tools, port int) (*Server, error) {
	cmd := exec.Command(t.node, t.cli,
		"--host", loopbackHost,
		"--port", strconv.Itoa(port),
		// Tables turn ACTIVE (and are deleted) on the next turn of the event loop, not after 500 ms.
		"--createTableMs", "0", "--updateTableMs", "0", "--deleteTableMs", "0",
	)
	ready := newLineSignal(readyLine)
	s := &Server{
		endpoint: "http://" + net.JoinHostPort(loopbackHost, strconv.Itoa(port)),
		stderr:   newTailBuffer(stderrTail),
	}
	cmd.Stdout = ready
	cmd.Stderr = s.stderr
	cmd.WaitDelay = exitIODelay
	proc, err := spawn(cmd)
	if err != nil {
		return nil, fmt.Errorf("dynalite: start %s: %w", t.node, err)
	}
	s.proc = proc

	select {
	case <-ready.seen:
	case <-proc.exited:
		return nil, s.failure(ErrExited)
	case <-ctx.Done():
		proc.stop(stopGrace)
		return nil, s.failure(context.Cause(ctx))
	}
	if err := s.checkAnswers(ctx); err != nil {
		proc.stop(stopGrace)
		return nil, err
	}
	return s, nil
}

// checkAnswers sends dynalite's health request and expects its "healthy" reply.
func (s *Server) checkAnswers(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.endpoint+"/", nil)
	if err != nil {
		return fmt.Errorf("dynalite: health request: %w", err)
	}
	req.Close = true
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("dynalite: health check of %s: %w", s.endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("dynalite: health check of %s: %w", s.endpoint, err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "healthy") {
		return fmt.Errorf("dynalite: health check of %s: unexpected reply %d %q", s.endpoint, resp.StatusCode, body)
	}
	return nil
}

// failure describes why the process failed, with its exit status once it has ended.
func (s *Server) failure(reason error) *ProcessError {
	e := &ProcessError{Reason: reason, Stderr: s.stderr.String()}
	if !s.proc.running() {
		e.Exit = s.proc.waitErr
	}
	return e
}

// Endpoint returns the server's base URL, e.g. "http://127.0.0.1:43127".
func (s *Server) Endpoint() string { return s.endpoint }

// Close stops dynalite and any children it started (SIGTERM to its process group, SIGKILL after
// a grace period) and waits for it to end. It returns a *ProcessError wrapping ErrExited if the
// server had already died. Calling Close again returns the same result.
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
