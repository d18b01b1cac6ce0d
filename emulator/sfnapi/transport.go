package sfnapi

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"syscall"
)

// Transport returns an http.RoundTripper that serves each request in this process, with the
// server's handler (the wrappers given to Serve included), without a loopback connection: an SDK
// client in the same process gets the same replies, without the cost of HTTP on both sides. As
// over a connection, the handler sees a context derived from the one given to Serve, cancelled
// too when the request's own context ends (not the request's context itself: its values and
// deadline stay the client's). Once the server is shut down, a request fails as a refused
// connection does.
func (s *Server) Transport() http.RoundTripper { return inProcess{s} }

// inProcess is the RoundTripper of Transport.
type inProcess struct{ s *Server }

// RoundTrip serves r with the server's handler and returns its reply.
func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	select {
	case <-t.s.served:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	default:
	}
	ctx, cancel := context.WithCancel(t.s.base)
	defer cancel()
	defer context.AfterFunc(r.Context(), cancel)()
	in := r.Clone(ctx)
	if in.Body == nil {
		in.Body = http.NoBody
	}
	defer in.Body.Close()
	if in.Host == "" {
		in.Host = r.URL.Host
	}
	w := httptest.NewRecorder()
	t.s.http.Handler.ServeHTTP(w, in)
	resp := w.Result()
	resp.Request = r
	return resp, nil
}
