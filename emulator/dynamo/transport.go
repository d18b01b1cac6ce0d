package dynamo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

const (
	// targetPrefix and contentType make a request of DynamoDB's JSON 1.0 protocol.
	targetPrefix = "DynamoDB_20120810."
	contentType  = "application/x-amz-json-1.0"
	// signingName is the service name in the Signature Version 4 credential scope.
	signingName = "dynamodb"
	// requestIDHeader carries the request ID of a DynamoDB reply.
	requestIDHeader = "x-amzn-RequestId"
	// missingRequestID is what the Java SDKs print for a reply without a request ID.
	missingRequestID = "null"
)

// reply is a DynamoDB HTTP response, read in full.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// requestID returns the reply's request ID.
func (r reply) requestID() string {
	if id := r.header.Get(requestIDHeader); id != "" {
		return id
	}
	return missingRequestID
}

// call sends one signed DynamoDB API request. An error means no reply was received.
func (i *Integration) call(ctx context.Context, operation string, body []byte) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, i.endpoint, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Amz-Target", targetPrefix+operation)
	sum := sha256.Sum256(body)
	if err := i.signer.SignHTTP(ctx, i.credentials, req, hex.EncodeToString(sum[:]), signingName, i.region, time.Now()); err != nil {
		return reply{}, fmt.Errorf("sign the request: %w", err)
	}
	resp, err := i.client.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("read the reply: %w", err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// idleConnTimeout closes idle connections well before the server's own idle timeout does (Jetty's
// default, in DynamoDB Local, is 30 s), so a request never goes out on a connection being closed.
const idleConnTimeout = 4 * time.Second

// newHTTPClient returns the default client: direct (no proxy: the server is local), with enough
// idle connections for many concurrent executions.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     idleConnTimeout,
	}}
}
