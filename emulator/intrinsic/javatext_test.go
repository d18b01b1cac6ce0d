package intrinsic

import (
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"

	"math"
	"testing"
)

func TestAppendJavaDouble(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{f: 1.1, want: "1.1"},
		{f: 1, want: "1.0"},
		{f: -2.5, want: "-2.5"},
		{f: 0, want: "0.0"},
		{f: math.Copysign(0, -1), want: "-0.0"},
		{f: 0.001, want: "0.001"},
		{f: 0.0001, want: "1.0E-4"},
		{f: 1234567.5, want: "1234567.5"},
		{f: 1e7, want: "1.0E7"},
		{f: 12345678.9, want: "1.23456789E7"},
		{f: 1e21, want: "1.0E21"},
		{f: -1.5e-10, want: "-1.5E-10"},
		{f: math.Inf(1), want: "Infinity"},
		{f: math.NaN(), want: "NaN"},
	}
	for _, tc := range tests {
		if got := string(appendJavaDouble(nil, tc.f)); got != tc.want {
			t.Errorf("appendJavaDouble(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestAppendText(t *testing.T) {
	value := jsonvalue.Of("b", []any{"x", int64(1), 2.0, nil, true}, "a", jsonvalue.Of("k", "v"), "c", "\u001f\t")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{name: "JSON", got: string(appendJSON(nil, value)), want: `{"b":["x",1,2.0,null,true],"a":{"k":"v"},"c":"\u001F\t"}`},
		{name: "canonical JSON", got: canonicalJSON(value), want: `{"a":{"k":"v"},"b":["x",1,2.0,null,true],"c":"\u001F\t"}`},
		{name: "Java toString", got: string(appendJavaText(nil, value)), want: "{b=[x, 1, 2.0, null, true], a={k=v}, c=\u001f\t}"},
		{name: "Go int", got: string(appendJSON(nil, 3)), want: "3"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
