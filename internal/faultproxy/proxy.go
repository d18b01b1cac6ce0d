package faultproxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// ErrInvalidTarget reports a target that is not an absolute http URL.
var ErrInvalidTarget = errors.New("faultproxy: invalid target")

// targetHeader names the DynamoDB operation of a request, e.g. "DynamoDB_20120810.UpdateItem".
const targetHeader = "X-Amz-Target"

// idleConnTimeout closes idle connections to the target well before the server's own idle
// timeout does (Jetty's default, in DynamoDB Local, is 30 s).
const idleConnTimeout = 4 * time.Second

// Proxy is a running fault-injecting reverse proxy on 127.0.0.1. It is safe for concurrent use.
type Proxy struct {
	target   string
	url      string
	listener net.Listener
	server   *http.Server
	upstream *upstream
	dice     *dice
	counts   counters
	capacity capacityCounters
	throttle string
	delay    func(r *http.Request) error
	served   chan error
}

// Start listens on a free 127.0.0.1 port and proxies requests to target, e.g. DynamoDB Local's
// endpoint "http://127.0.0.1:8000", injecting the faults c asks for.
func Start(target string, c Config) (*Proxy, error) {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("%w %q: want an absolute http URL such as http://127.0.0.1:8000", ErrInvalidTarget, target)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{
		target:   target,
		url:      "http://" + listener.Addr().String(),
		listener: listener,
		upstream: newUpstream(u.Host),
		dice:     newDice(c),
		throttle: c.throttleCode(),
		delay:    c.Delay,
		served:   make(chan error, 1),
	}
	p.server = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { p.served <- p.server.Serve(listener) }()
	return p, nil
}

// URL is the proxy's endpoint, to give to a client in place of the target's.
func (p *Proxy) URL() string { return p.url }

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	s := p.counts.snapshot()
	p.capacity.addTo(&s)
	return s
}

// Close stops the proxy: it stops listening, closes every connection and waits for the server to
// end.
func (p *Proxy) Close() error {
	err := p.server.Close()
	if served := <-p.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	p.upstream.close()
	if err != nil {
		return fmt.Errorf("faultproxy: close: %w", err)
	}
	return nil
}

// serve handles one request according to its fate.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if p.delay != nil {
		if err := p.delay(r); err != nil {
			resetConnection(w)
			return
		}
	}
	p.counts.requests.Add(1)
	fault := p.dice.roll(r.Header.Get(targetHeader))
	p.counts.count(fault)
	switch fault {
	case LostBefore:
		resetConnection(w)
	case Throttled:
		p.answerThrottled(w)
	default:
		p.forward(w, r, fault == AppliedReplyLost)
	}
}

// forward sends the request to the target and returns its reply, or, when dropReply, resets the
// client's connection once the target has replied.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, dropReply bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		resetConnection(w)
		return
	}
	op := operation(r.Header.Get(targetHeader))
	body, asked := prepare(op, body)
	if asked.tx != nil {
		p.sizeBefore(r.Context(), r.Header, asked.tx)
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = forwardedHeader(r.Header) // out.ContentLength is right: the body may have changed
	out.Host = r.Host                      // as the client signed it (DynamoDB Local checks no signature)
	p.counts.forwarded.Add(1)
	resp, err := p.upstream.Do(out)
	if err != nil {
		p.counts.forwardFailures.Add(1)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		resetConnection(w)
		return
	}
	if asked.tx != nil && resp.StatusCode == http.StatusOK {
		p.sizeAfter(r.Context(), r.Header, asked.tx)
	}
	// A write whose reply is lost was applied, and billed.
	reply = p.capacity.account(op, asked, resp.StatusCode, resp.Header, reply, time.Now())
	if dropReply {
		resetConnection(w)
		return
	}
	for name, values := range resp.Header {
		w.Header()[name] = values
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(reply)
}

// forwardedHeaders are the request headers the target reads: the protocol's and the
// signature's. The others (the SDK's User-Agent and attempt headers, a caller's own) would only
// cost the server their parsing.
var forwardedHeaders = []string{"Content-Type", targetHeader, "Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256", "Accept-Encoding"}

// forwardedHeader returns the headers of h that the target reads.
func forwardedHeader(h http.Header) http.Header {
	out := make(http.Header, len(forwardedHeaders))
	for _, name := range forwardedHeaders {
		if values := h.Values(name); len(values) > 0 {
			out[name] = slices.Clone(values)
		}
	}
	return out
}

// answerThrottled replies with a throttling error as DynamoDB sends it.
func (p *Proxy) answerThrottled(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("x-amzn-RequestId", "faultproxy-throttled")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = fmt.Fprintf(w, `{"__type":"com.amazonaws.dynamodb.v20120810#%s","message":"Rate of requests exceeds the allowed throughput (injected by faultproxy)"}`, p.throttle)
}

// resetConnection aborts the client's connection with a TCP reset and no reply (an in-process
// request's recorder notes it).
func resetConnection(w http.ResponseWriter) {
	if rec, ok := w.(*recorder); ok {
		rec.reset = true
		return
	}
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// Only an HTTP/2 connection cannot be hijacked, and the proxy serves HTTP/1.1 only.
		http.Error(w, "faultproxy: cannot reset the connection: "+err.Error(), http.StatusBadGateway)
		return
	}
	if tcp, ok := conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
