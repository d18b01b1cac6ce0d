package golambda_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/golambda"
)

func TestNewPanicsOnInvalidProps(t *testing.T) {
	tests := []struct {
		name  string
		props *golambda.Props
		want  string
	}{
		{name: "nil props", props: nil, want: "Props.Package is required"},
		{name: "no package", props: &golambda.Props{}, want: "Props.Package is required"},
		{name: "blank package", props: &golambda.Props{Package: jsii.String("  ")}, want: "Props.Package is required"},
		{name: "outside module", props: &golambda.Props{Package: jsii.String("../elsewhere")},
			want: `package "../elsewhere" must be an import path or a directory inside the module, relative to its root`},
		{name: "absolute", props: &golambda.Props{Package: jsii.String("/lambdas/dowork")},
			want: `package "/lambdas/dowork" must be an import path or a directory inside the module, relative to its root`},
		{name: "missing directory", props: &golambda.Props{Package: jsii.String("lambdas/nothing")},
			want: `package not found: "lambdas/nothing"`},
		{name: "unknown import path", props: &golambda.Props{Package: jsii.String("example.com/nobody/fn")},
			want: `package not found: "example.com/nobody/fn"`},
		{name: "library package", props: &golambda.Props{Package: jsii.String("github.com/turnstile-sfn/turnstile/asl")},
			want: `is package asl, not a main package`},
		{name: "too little memory", props: &golambda.Props{Package: jsii.String("lambdas/dowork"), MemorySize: jsii.Number(64)},
			want: "Props.MemorySize must be from 128 to 10240 MiB, got 64"},
		{name: "negative reservation", props: &golambda.Props{Package: jsii.String("lambdas/dowork"), ReservedConcurrentExecutions: jsii.Number(-1)},
			want: "Props.ReservedConcurrentExecutions must be >= 0, got -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stack := awscdk.NewStack(awscdk.NewApp(nil), jsii.String("Props"), nil)
			got := panicMessage(func() { golambda.New(stack, jsii.String("Fn"), tt.props) })
			if !strings.HasPrefix(got, "golambda: ") || !strings.Contains(got, tt.want) {
				t.Errorf("panic = %q, want one containing %q", got, tt.want)
			}
		})
	}
}

// panicMessage runs fn and returns what it panicked with as text, or "" when it did not panic.
func panicMessage(fn func()) string {
	if r := panicValue(fn); r != nil {
		return fmt.Sprint(r)
	}
	return ""
}

// panicValue runs fn and returns what it panicked with, or nil when it did not panic.
func panicValue(fn func()) (value any) {
	defer func() { value = recover() }()
	fn()
	return nil
}
