package eventbus_test

import (
	"errors"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		expr string
		want time.Duration
	}{
		{"rate(1 minute)", time.Minute},
		{"rate(5 minutes)", 5 * time.Minute},
		{"rate(1 hour)", time.Hour},
		{"rate(12 hours)", 12 * time.Hour},
		{"rate(1 day)", 24 * time.Hour},
		{"rate(7 days)", 7 * 24 * time.Hour},
	}
	for _, tt := range tests {
		s, err := eventbus.ParseSchedule(tt.expr)
		if err != nil {
			t.Fatalf("ParseSchedule(%q): %v", tt.expr, err)
		}
		rate, ok := s.(eventbus.Rate)
		if !ok || rate.Interval != tt.want {
			t.Errorf("ParseSchedule(%q) = %#v, want a Rate of %v", tt.expr, s, tt.want)
		}
		start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		if got := s.Next(start); !got.Equal(start.Add(tt.want)) {
			t.Errorf("%s.Next(%v) = %v", tt.expr, start, got)
		}
		if s.String() != tt.expr {
			t.Errorf("String() = %q, want %q", s.String(), tt.expr)
		}
	}
}

func TestParseCronNext(t *testing.T) {
	tests := []struct {
		expr  string
		after time.Time
		want  time.Time
	}{
		{"cron(0/5 * * * ? *)", time.Date(2024, 3, 1, 10, 2, 30, 0, time.UTC), time.Date(2024, 3, 1, 10, 5, 0, 0, time.UTC)},
		{"cron(0/5 * * * ? *)", time.Date(2024, 3, 1, 10, 5, 0, 0, time.UTC), time.Date(2024, 3, 1, 10, 10, 0, 0, time.UTC)},
		{"cron(0 10 * * ? *)", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC), time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC)},
		{"cron(15 12 * * ? *)", time.Date(2024, 12, 31, 13, 0, 0, 0, time.UTC), time.Date(2025, 1, 1, 12, 15, 0, 0, time.UTC)},
		{"cron(0 18 ? * MON-FRI *)", time.Date(2024, 3, 1, 19, 0, 0, 0, time.UTC), time.Date(2024, 3, 4, 18, 0, 0, 0, time.UTC)},
		{"cron(0 8 1 * ? *)", time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC), time.Date(2024, 4, 1, 8, 0, 0, 0, time.UTC)},
		{"cron(0 0 29 FEB ? *)", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"cron(30 6 ? * SUN,SAT 2030)", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 1, 5, 6, 30, 0, 0, time.UTC)},
		{"cron(0 0 1 1 ? 1999)", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}},
	}
	for _, tt := range tests {
		s, err := eventbus.ParseSchedule(tt.expr)
		if err != nil {
			t.Fatalf("ParseSchedule(%q): %v", tt.expr, err)
		}
		if got := s.Next(tt.after); !got.Equal(tt.want) {
			t.Errorf("%s.Next(%v) = %v, want %v", tt.expr, tt.after, got, tt.want)
		}
	}
}

func TestParseScheduleErrors(t *testing.T) {
	tests := []struct {
		expr    string
		wantErr error
	}{
		{"every 5 minutes", eventbus.ErrInvalidSchedule},
		{"rate(5)", eventbus.ErrInvalidSchedule},
		{"rate(0 minutes)", eventbus.ErrInvalidSchedule},
		{"rate(-1 minutes)", eventbus.ErrInvalidSchedule},
		{"rate(1 minutes)", eventbus.ErrInvalidSchedule},
		{"rate(5 minute)", eventbus.ErrInvalidSchedule},
		{"rate(5 seconds)", eventbus.ErrInvalidSchedule},
		{"cron(0 10 * * *)", eventbus.ErrInvalidSchedule},
		{"cron(0 10 * * * *)", eventbus.ErrInvalidSchedule},
		{"cron(0 10 ? * ? *)", eventbus.ErrInvalidSchedule},
		{"cron(60 10 * * ? *)", eventbus.ErrInvalidSchedule},
		{"cron(? 10 * * ? *)", eventbus.ErrInvalidSchedule},
		{"cron(0 10-5 * * ? *)", eventbus.ErrInvalidSchedule},
		{"cron(0/0 10 * * ? *)", eventbus.ErrInvalidSchedule},
		{"cron(0 10 L * ? *)", eventbus.ErrUnsupportedSchedule},
		{"cron(0 10 15W * ? *)", eventbus.ErrUnsupportedSchedule},
		{"cron(0 10 ? * 6#3 *)", eventbus.ErrUnsupportedSchedule},
		{"at(2024-01-01T00:00:00)", eventbus.ErrUnsupportedSchedule},
	}
	for _, tt := range tests {
		if _, err := eventbus.ParseSchedule(tt.expr); !errors.Is(err, tt.wantErr) {
			t.Errorf("ParseSchedule(%q) error = %v, want %v", tt.expr, err, tt.wantErr)
		}
	}
}
