package intrinsic

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

func TestUUID(t *testing.T) {
	version4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	e, err := Parse("States.Array(States.UUID(), States.UUID())")
	if err != nil {
		t.Fatal(err)
	}
	draw := func(seed uint64) []any {
		got, err := e.Evaluate(nil, Env{Rand: rand.New(rand.NewPCG(seed, seed))})
		if err != nil {
			t.Fatal(err)
		}
		return got.([]any)
	}
	first, replay, other := draw(7), draw(7), draw(8)
	for _, id := range append(append([]any{}, first...), other...) {
		if s, ok := id.(string); !ok || !version4.MatchString(s) {
			t.Fatalf("got %#v, want a lowercase version 4 UUID", id)
		}
	}
	if first[0] == first[1] {
		t.Fatalf("two UUIDs of one evaluation are equal: %v", first[0])
	}
	if first[0] != replay[0] || first[1] != replay[1] {
		t.Fatalf("same seed gave %v then %v", first, replay)
	}
	if first[0] == other[0] {
		t.Fatalf("different seeds gave the same UUID %v", first[0])
	}
}

func TestUUIDArity(t *testing.T) {
	runEvalCases(t, []evalCase{
		{name: "argument", expr: "States.UUID(1)", wantDetail: "Invalid arguments in States.UUID"},
	})
}
