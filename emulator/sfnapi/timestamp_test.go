package sfnapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/sfnapi"
)

func TestTimestampJSON(t *testing.T) {
	tests := []struct {
		name string
		in   time.Time
		want string
	}{
		{"milliseconds", time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC), "1773500966.535"},
		{"whole seconds keep the fraction", time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC), "1773500966.000"},
		{"below a millisecond is dropped", time.Date(2026, 3, 14, 15, 9, 26, 999_999, time.UTC), "1773500966.000"},
		{"another zone, same instant", time.Date(2026, 3, 14, 16, 9, 26, 1_000_000, time.FixedZone("CET", 3600)), "1773500966.001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(sfnapi.NewTimestamp(tt.in))
			if err != nil || string(got) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", got, err, tt.want)
			}
			var back sfnapi.Timestamp
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("Unmarshal(%s): %v", got, err)
			}
			if want := tt.in.Truncate(time.Millisecond); !back.Equal(want) {
				t.Errorf("round trip = %v, want %v", back.Time, want)
			}
		})
	}
}

func TestTimestampUnmarshal(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"1773500966.535", time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)},
		{"1.773500966535E9", time.Date(2026, 3, 14, 15, 9, 26, 535_000_000, time.UTC)},
		{"1773500966", time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)},
	}
	for _, tt := range tests {
		var got sfnapi.Timestamp
		if err := json.Unmarshal([]byte(tt.in), &got); err != nil || !got.Equal(tt.want) {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", tt.in, got.Time, err, tt.want)
		}
	}
	for _, bad := range []string{`"yesterday"`, `true`, `{}`} {
		var got sfnapi.Timestamp
		if err := json.Unmarshal([]byte(bad), &got); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, got.Time)
		}
	}
}

func TestZeroOptionalTimestampsAreOmitted(t *testing.T) {
	item := sfnapi.ExecutionListItem{Name: "n", StartDate: sfnapi.NewTimestamp(time.Unix(1773500966, 0))}
	got, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"executionArn":"","stateMachineArn":"","name":"n","status":"","startDate":1773500966.000,"redriveCount":0}`
	if string(got) != want {
		t.Errorf("ExecutionListItem = %s, want %s (no stopDate, no redriveDate)", got, want)
	}
}
