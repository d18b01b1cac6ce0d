package lambdafn_test

import (
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
)

func TestParseFunctionName(t *testing.T) {
	tests := []struct {
		in   string
		want lambdafn.FunctionRef
	}{
		{"my-fn", lambdafn.FunctionRef{Name: "my-fn"}},
		{"my-fn:prod", lambdafn.FunctionRef{Name: "my-fn", Qualifier: "prod"}},
		{"my-fn:$LATEST", lambdafn.FunctionRef{Name: "my-fn", Qualifier: "$LATEST"}},
		{"my_fn.v2:7", lambdafn.FunctionRef{Name: "my_fn.v2", Qualifier: "7"}},
		{"123456789012:function:my-fn", lambdafn.FunctionRef{Account: "123456789012", Name: "my-fn"}},
		{"123456789012:function:my-fn:prod", lambdafn.FunctionRef{Account: "123456789012", Name: "my-fn", Qualifier: "prod"}},
		{
			"arn:aws:lambda:us-east-1:000000000000:function:my-fn",
			lambdafn.FunctionRef{Partition: "aws", Region: "us-east-1", Account: "000000000000", Name: "my-fn"},
		},
		{
			"arn:aws:lambda:eu-west-3:123456789012:function:my-fn:$LATEST",
			lambdafn.FunctionRef{Partition: "aws", Region: "eu-west-3", Account: "123456789012", Name: "my-fn", Qualifier: "$LATEST"},
		},
		{
			"arn:aws-us-gov:lambda:us-gov-west-1:123456789012:function:f:live",
			lambdafn.FunctionRef{Partition: "aws-us-gov", Region: "us-gov-west-1", Account: "123456789012", Name: "f", Qualifier: "live"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := lambdafn.ParseFunctionName(tt.in)
			if err != nil {
				t.Fatalf("ParseFunctionName(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseFunctionName(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseFunctionNameRejects(t *testing.T) {
	tests := []string{
		"",
		"my fn",
		"my-fn:",
		"my-fn:bad qualifier",
		"a:b:c",
		"12345:function:my-fn",
		"123456789012:function:my-fn:prod:extra",
		"arn:aws:lambda:us-east-1:000000000000:function",
		"arn:aws:s3:us-east-1:000000000000:function:my-fn",
		"arn:aws:lambda:us-east-1:000000000000:layer:my-fn",
		"arn:aws:lambda:useast1:000000000000:function:my-fn",
		"arn:gcp:lambda:us-east-1:000000000000:function:my-fn",
		"a-name-that-is-much-too-long-for-lambda-because-it-has-more-than-64-chars",
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			got, err := lambdafn.ParseFunctionName(in)
			if !errors.Is(err, lambdafn.ErrInvalidFunctionName) {
				t.Errorf("ParseFunctionName(%q) = %+v, %v; want ErrInvalidFunctionName", in, got, err)
			}
		})
	}
}

func TestFunctionRefARN(t *testing.T) {
	tests := []struct {
		ref  lambdafn.FunctionRef
		want string
	}{
		{lambdafn.FunctionRef{Region: "us-east-1", Account: "000000000000", Name: "f"}, "arn:aws:lambda:us-east-1:000000000000:function:f"},
		{lambdafn.FunctionRef{Partition: "aws-cn", Region: "cn-north-1", Account: "000000000000", Name: "f", Qualifier: "3"}, "arn:aws-cn:lambda:cn-north-1:000000000000:function:f:3"},
	}
	for _, tt := range tests {
		if got := tt.ref.ARN(); got != tt.want {
			t.Errorf("%+v.ARN() = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestRegistryResolvesLikeLambda(t *testing.T) {
	reg := newRegistry(t, lambdafn.WithRegion("eu-central-1"), lambdafn.WithAccount("111122223333"))
	if err := reg.Register("my-fn", echo); err != nil {
		t.Fatal(err)
	}
	want := lambdafn.FunctionRef{Partition: "aws", Region: "eu-central-1", Account: "111122223333", Name: "my-fn"}
	for _, name := range []string{
		"my-fn",
		"my-fn:prod",
		"111122223333:function:my-fn",
		"arn:aws:lambda:eu-central-1:111122223333:function:my-fn",
		"arn:aws:lambda:eu-central-1:111122223333:function:my-fn:$LATEST",
	} {
		got, err := reg.Resolve(name)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %+v, %v; want %+v", name, got, err, want)
		}
	}
	for _, name := range []string{
		"other-fn",
		"999999999999:function:my-fn",
		"arn:aws:lambda:us-east-1:111122223333:function:my-fn",
	} {
		if _, err := reg.Resolve(name); !errors.Is(err, lambdafn.ErrNotRegistered) {
			t.Errorf("Resolve(%q) error = %v, want ErrNotRegistered", name, err)
		}
	}
}
