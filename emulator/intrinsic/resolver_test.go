package intrinsic

import (
	"errors"
	"reflect"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

func TestNewResolver(t *testing.T) {
	input := jsonvalue.Of("a", nil, "items", []any{int64(1), int64(2)}, "o", jsonvalue.Of("x", int64(1)))
	contextObject := func() any { return jsonvalue.Of("State", jsonvalue.Of("Name", "P")) }
	resolve := NewResolver(input, contextObject)
	tests := []struct {
		path        string
		want        any
		wantMissing bool
	}{
		{path: "$", want: input},
		{path: "$.a", want: nil},
		{path: "$.o.x", want: int64(1)},
		{path: "$['o']['x']", want: int64(1)},
		{path: "$.items[1]", want: int64(2)},
		{path: "$.items[-1]", want: int64(2)},
		{path: "$.items[*]", want: []any{int64(1), int64(2)}},
		{path: "$.items[*].nope", want: []any{}},
		{path: "$..x", want: []any{int64(1)}},
		{path: "$$.State.Name", want: "P"},
		{path: "$.a-b", wantMissing: true}, // Jayway reads "a-b" as a name, as the interpreter does
		{path: "$.abc.['def ghi']", wantMissing: true},
		{path: "$.nope", wantMissing: true},
		{path: "$.items[2]", wantMissing: true},
		{path: "$.o.x.y", wantMissing: true},
		{path: "$$.Nope", wantMissing: true},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			got, err := resolve(tc.path)
			if tc.wantMissing {
				var missing *NotFoundError
				if !errors.As(err, &missing) || missing.Path != tc.path || !reflect.DeepEqual(missing.Input, input) {
					t.Fatalf("got (%#v, %v), want a *NotFoundError quoting the state input", got, err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got (%#v, %v), want %#v", got, err, tc.want)
			}
		})
	}
}

func TestNewResolverRejectsInvalidPath(t *testing.T) {
	if _, err := NewResolver(nil, nil)("$.a["); err == nil {
		t.Fatal("got no error for an invalid JSONPath")
	}
}
