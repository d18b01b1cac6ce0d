package golambda

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
)

// Defaults of Props.
const (
	// DefaultMemorySize is the memory of a function in MiB; a Go binary rarely needs more.
	DefaultMemorySize = 128
	// DefaultTimeoutSeconds is the timeout of one invocation.
	DefaultTimeoutSeconds = 30
	// DefaultLogRetention is how long the function's log group keeps its events.
	DefaultLogRetention = awslogs.RetentionDays_ONE_MONTH
)

// Limits of AWS Lambda checked at construction.
const (
	// MinMemorySize is the least memory a function can have, in MiB.
	MinMemorySize = 128
	// MaxMemorySize is the most memory a function can have, in MiB.
	MaxMemorySize = 10240
)

// Props configures a Go Lambda function.
type Props struct {
	// Package is the function's main package: an import path that the app's go.mod provides
	// ("example.com/app/cmd/work", "github.com/turnstile-sfn/turnstile/lambdas/dowork"), or a
	// directory of the app's own module, relative to its root and written with slashes
	// ("cmd/work"). See gobuild.Resolve.
	//
	// Required.
	Package *string
	// Environment holds the function's environment variables.
	//
	// Default: none.
	Environment *map[string]*string
	// MemorySize is the memory of the function in MiB, from MinMemorySize to MaxMemorySize.
	//
	// Default: DefaultMemorySize.
	MemorySize *float64
	// Timeout is the longest one invocation may run.
	//
	// Default: DefaultTimeoutSeconds.
	Timeout awscdk.Duration
	// ReservedConcurrentExecutions reserves that many concurrent executions for the function out
	// of the account's regional pool, and caps the function at that number: invocations beyond
	// it are throttled (a synchronous caller such as Step Functions gets
	// Lambda.TooManyRequestsException and retries per its Retry policy). Set it to the
	// semaphore's limit as a second line of defence under the semaphore. Lambda keeps at least
	// 100 executions of the account unreserved, so an account whose concurrency quota is low
	// cannot reserve any; 0 stops every invocation.
	//
	// Default: none, the function draws from the unreserved pool.
	ReservedConcurrentExecutions *float64
	// Description is the function's description.
	//
	// Default: none.
	Description *string
	// LogRetention is how long the function's log group keeps log events. The log group is
	// deleted with the stack.
	//
	// Default: DefaultLogRetention.
	LogRetention awslogs.RetentionDays
}

// validate checks props. It panics, as constructs do, naming the field and the value.
func (props *Props) validate() {
	if props == nil || props.Package == nil || strings.TrimSpace(*props.Package) == "" {
		panic("golambda: Props.Package is required: an import path or a directory of the app's module")
	}
	if props.MemorySize != nil && (*props.MemorySize < MinMemorySize || *props.MemorySize > MaxMemorySize) {
		panic(fmt.Sprintf("golambda: Props.MemorySize must be from %d to %d MiB, got %v", MinMemorySize, MaxMemorySize, *props.MemorySize))
	}
	if props.ReservedConcurrentExecutions != nil && *props.ReservedConcurrentExecutions < 0 {
		panic(fmt.Sprintf("golambda: Props.ReservedConcurrentExecutions must be >= 0, got %v", *props.ReservedConcurrentExecutions))
	}
}
