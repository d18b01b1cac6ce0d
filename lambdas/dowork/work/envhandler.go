package work

import (
	"context"
	"encoding/json"
)

// LambdaHandler is the signature given to lambda.Start.
type LambdaHandler func(ctx context.Context, input json.RawMessage) (Result, error)

// EnvHandler returns the Lambda entry point configured from the environment through lookup.
// When the configuration is invalid, every invocation returns the *InvalidConfig, so that the
// caller sees the error name "InvalidConfig" rather than a crashed runtime.
func EnvHandler(lookup LookupFunc, opts ...Option) LambdaHandler {
	h, err := NewFromEnv(lookup, opts...)
	if err != nil {
		return func(context.Context, json.RawMessage) (Result, error) { return Result{}, err }
	}
	return h.Handle
}
