package faultproxy_test

import (
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/internal/faultproxy"
)

func TestStartRejectsBadInput(t *testing.T) {
	tests := []struct {
		name   string
		target string
		config faultproxy.Config
		want   error
	}{
		{"negative fraction", "http://127.0.0.1:1", faultproxy.Config{LostBefore: -0.1}, faultproxy.ErrInvalidConfig},
		{"fraction above one", "http://127.0.0.1:1", faultproxy.Config{Throttled: 1.5}, faultproxy.ErrInvalidConfig},
		{"fractions adding up above one", "http://127.0.0.1:1", faultproxy.Config{AppliedReplyLost: 0.6, LostBefore: 0.6}, faultproxy.ErrInvalidConfig},
		{"unknown throttle code", "http://127.0.0.1:1", faultproxy.Config{ThrottleCode: "SlowDown"}, faultproxy.ErrInvalidConfig},
		{"relative target", "127.0.0.1:1", faultproxy.Config{}, faultproxy.ErrInvalidTarget},
		{"https target", "https://127.0.0.1:1", faultproxy.Config{}, faultproxy.ErrInvalidTarget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := faultproxy.Start(tt.target, tt.config)
			if !errors.Is(err, tt.want) {
				t.Errorf("Start error = %v, want %v", err, tt.want)
			}
			if p != nil {
				t.Errorf("Start returned a proxy with an error")
				_ = p.Close()
			}
		})
	}
}

func TestFaultString(t *testing.T) {
	tests := []struct {
		fault faultproxy.Fault
		want  string
	}{
		{faultproxy.Pass, "pass"},
		{faultproxy.AppliedReplyLost, "applied-reply-lost"},
		{faultproxy.LostBefore, "lost-before"},
		{faultproxy.Throttled, "throttled"},
	}
	for _, tt := range tests {
		if got := tt.fault.String(); got != tt.want {
			t.Errorf("Fault(%d).String() = %q, want %q", tt.fault, got, tt.want)
		}
	}
}
