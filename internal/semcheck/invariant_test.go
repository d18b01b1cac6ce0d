package semcheck_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/turnstile-sfn/turnstile/internal/semcheck"
)

func TestSnapshotCheck(t *testing.T) {
	tests := []struct {
		name          string
		snapshot      semcheck.Snapshot
		wantViolation string // "" when the invariant holds
	}{
		{"no item yet", semcheck.Snapshot{}, ""},
		{"full", semcheck.Snapshot{Count: 2, Holders: []string{"a", "b"}}, ""},
		{"over the limit", semcheck.Snapshot{Count: 3, Holders: []string{"a", "b", "c"}}, "more holders than the limit"},
		{"counter ahead of the holders", semcheck.Snapshot{Count: 2, Holders: []string{"a"}}, "counter differs from the number of holders"},
		{"counter behind the holders", semcheck.Snapshot{Count: 0, Holders: []string{"a"}}, "counter differs from the number of holders"},
		{"negative counter", semcheck.Snapshot{Count: -1}, "negative counter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.snapshot.Check(2)
			var broken *semcheck.InvariantError
			switch {
			case tt.wantViolation == "" && err != nil:
				t.Errorf("Check() = %v, want nil", err)
			case tt.wantViolation == "":
			case !errors.As(err, &broken) || !errors.Is(err, semcheck.ErrInvariant):
				t.Errorf("Check() = %v, want an *InvariantError wrapping ErrInvariant", err)
			case broken.Violation != tt.wantViolation:
				t.Errorf("Violation = %q, want %q", broken.Violation, tt.wantViolation)
			}
		})
	}
}

func TestSnapshotFromItem(t *testing.T) {
	tests := []struct {
		name    string
		item    map[string]any
		want    semcheck.Snapshot
		wantErr error
	}{
		{name: "missing item", item: nil, want: semcheck.Snapshot{}},
		{
			name: "two holders",
			item: map[string]any{
				"LockName":         map[string]any{"S": "demo"},
				"currentlockcount": map[string]any{"N": "2"},
				"arn:exec:b":       map[string]any{"S": "2026-01-01T00:00:00Z"},
				"arn:exec:a":       map[string]any{"S": "2026-01-01T00:00:00Z"},
			},
			want: semcheck.Snapshot{Count: 2, Holders: []string{"arn:exec:a", "arn:exec:b"}},
		},
		{
			name:    "counter not a number",
			item:    map[string]any{"currentlockcount": map[string]any{"S": "2"}},
			wantErr: semcheck.ErrMalformedItem,
		},
		{
			name:    "counter not an integer",
			item:    map[string]any{"currentlockcount": map[string]any{"N": "1.5"}},
			wantErr: semcheck.ErrMalformedItem,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := semcheck.SnapshotFromItem(tt.item)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("SnapshotFromItem() error = %v, want %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SnapshotFromItem() = %+v, want %+v", got, tt.want)
			}
		})
	}
}
