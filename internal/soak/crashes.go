package soak

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// crashedExecutions is the soak's stand-in for Step Functions: the executions that crashed are
// FAILED, every other one is RUNNING. It answers DescribeExecution for the reconciler and the
// cleanup's "is it still running?" check. It is safe for concurrent use.
type crashedExecutions struct {
	mu      sync.Mutex
	crashed map[string]bool
}

func newCrashedExecutions() *crashedExecutions {
	return &crashedExecutions{crashed: map[string]bool{}}
}

// crash marks the execution as crashed.
func (c *crashedExecutions) crash(executionArn string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.crashed[executionArn] = true
}

// running reports whether the execution is still running (it has not crashed).
func (c *crashedExecutions) running(executionArn string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.crashed[executionArn]
}

// errNoWaiters is SendTaskSuccess's answer: the soak's locks have no wait queue, so the
// reconciler never wakes a waiter.
var errNoWaiters = errors.New("soak: no execution waits on a task token")

// SendTaskSuccess fails with errNoWaiters.
func (c *crashedExecutions) SendTaskSuccess(context.Context, *sfn.SendTaskSuccessInput, ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	return nil, errNoWaiters
}

// DescribeExecution answers FAILED for a crashed execution and RUNNING for any other.
func (c *crashedExecutions) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	status := sfntypes.ExecutionStatusRunning
	if !c.running(aws.ToString(in.ExecutionArn)) {
		status = sfntypes.ExecutionStatusFailed
	}
	return &sfn.DescribeExecutionOutput{ExecutionArn: in.ExecutionArn, Status: status}, nil
}
