package faultproxy

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
)

// Transport returns an http.RoundTripper that serves each request in this process, as the
// proxy's listener does, without a loopback connection: the same delay, faults, counts and
// capacity accounting, one HTTP hop fewer. A request whose connection the proxy resets fails
// with the error a reset connection reads as (a *net.OpError wrapping ECONNRESET). Clients in
// this process use it; clients in other processes use URL.
func (p *Proxy) Transport() http.RoundTripper { return inProcess{p} }

// inProcess is the RoundTripper of Transport.
type inProcess struct{ p *Proxy }

// RoundTrip serves r with the proxy's handler and returns its reply.
func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	body := r.Body
	if body == nil {
		body = http.NoBody
	}
	defer body.Close()
	in := r.Clone(r.Context()) // the handler may replace the body; r must stay as given
	in.Body = body
	if in.Host == "" {
		in.Host = r.URL.Host
	}
	w := &recorder{header: http.Header{}}
	t.p.serve(w, in)
	if w.reset {
		return nil, &net.OpError{Op: "read", Net: "tcp", Addr: inProcessAddr(r.URL.Host), Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status:        strconv.Itoa(w.status) + " " + http.StatusText(w.status),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       r,
	}, nil
}

// recorder is the http.ResponseWriter of an in-process request: it keeps the reply, or notes
// that the proxy reset the connection.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	reset  bool
}

// Header returns the reply's header.
func (w *recorder) Header() http.Header { return w.header }

// WriteHeader records the status of the reply.
func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

// Write appends to the reply's body.
func (w *recorder) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// inProcessAddr is the address a reset in-process request names: the proxy's.
type inProcessAddr string

// Network is "tcp".
func (inProcessAddr) Network() string { return "tcp" }

// String is the host and port.
func (a inProcessAddr) String() string { return string(a) }
