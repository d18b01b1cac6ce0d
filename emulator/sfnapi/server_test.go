package sfnapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func TestServeOnlyOnLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0x", "example.com:0"} {
		srv, err := sfnapi.Serve(context.Background(), newFakeBackend(), addr)
		if err == nil {
			_ = srv.Close()
			t.Errorf("Serve(%q) succeeded, want an error", addr)
		}
	}
	if _, err := sfnapi.Serve(context.Background(), newFakeBackend(), "0.0.0.0:0"); !errors.Is(err, sfnapi.ErrNotLoopback) {
		t.Errorf("Serve(0.0.0.0:0) error = %v, want ErrNotLoopback", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", ":0"} {
		srv, err := sfnapi.Serve(context.Background(), newFakeBackend(), addr)
		if err != nil {
			t.Errorf("Serve(%q): %v", addr, err)
			continue
		}
		if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") || strings.HasSuffix(srv.URL(), ":0") {
			t.Errorf("Serve(%q).URL() = %q, want http://127.0.0.1:<port>", addr, srv.URL())
		}
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

func TestServerStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := sfnapi.Serve(ctx, newFakeBackend(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client := sfn.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1},
		func(o *sfn.Options) { o.BaseEndpoint = aws.String(srv.URL()) })
	if _, err := client.ListStateMachines(context.Background(), &sfn.ListStateMachinesInput{}); err != nil {
		t.Fatalf("ListStateMachines before cancel: %v", err)
	}
	cancel()
	// Close waits for the shutdown the cancellation started, and later calls agree.
	if err := srv.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := http.Post(srv.URL(), "application/x-amz-json-1.0", strings.NewReader("{}")); err == nil {
		t.Error("the server still answers after its context was cancelled")
	}
}
