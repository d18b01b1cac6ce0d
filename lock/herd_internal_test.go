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
		held    time.Duration
		want    time.Duration
	}{
		{"a round trip per holder", 1, 100, time.Hour, time.Second},
		{"at most herdMax", 1, 10_000, time.Hour, herdMax},
		{"halved at the second loss", 2, 10_000, time.Hour, herdMax / 2},
		{"at most an eighth of the time held", 1, 1000, time.Second, time.Second / herdShare},
		{"nothing for a slot just taken", 1, 1000, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := herdWindow(tc.tries, releaseStep{contenders: tc.holders, roundTrip: rt}, tc.held); got != tc.want {
				t.Errorf("herdWindow(%d, %d holders, held %v) = %v, want %v", tc.tries, tc.holders, tc.held, got, tc.want)
			}
		})
	}
}
