package ddblocal

import (
	"context"
	"errors"
	"testing"
)

func TestNewClientRejectsBadEndpoints(t *testing.T) {
	for _, endpoint := range []string{"", "127.0.0.1:8000", "ftp://127.0.0.1:8000", "http://", "http://[::1"} {
		t.Run(endpoint, func(t *testing.T) {
			client, err := NewClient(t.Context(), endpoint)
			if client != nil || !errors.Is(err, ErrInvalidEndpoint) {
				t.Fatalf("NewClient(%q) = %v, %v; want nil, ErrInvalidEndpoint", endpoint, client, err)
			}
		})
	}
}

func TestNewClientHonoursCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	client, err := NewClient(ctx, "http://127.0.0.1:8000")
	if client != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("NewClient = %v, %v; want nil, context.Canceled", client, err)
	}
}
