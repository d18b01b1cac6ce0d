package lock

import (
	"testing"
	"time"
)

func TestHerdWindow(t *testing.T) {
	const rt = 10 * time.Millisecond
	for _, tc := range []struct {
		name    string
		tries   int
		holders int
		want    time.Duration
	}{
		{"a round trip per holder", 1, 100, time.Second},
		{"at most herdMax", 1, 10_000, herdMax},
		{"halved at the second loss", 2, 10_000, herdMax / 2},
		{"halved again at the third", 3, 10_000, herdMax / 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := herdWindow(tc.tries, releaseStep{contenders: tc.holders, roundTrip: rt}); got != tc.want {
				t.Errorf("herdWindow(%d, %d holders) = %v, want %v", tc.tries, tc.holders, got, tc.want)
			}
		})
	}
}
