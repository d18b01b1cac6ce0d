package simulate

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// startLoss loses the reply of a fraction of the StartExecution calls that start submissions
// (Faults.StartReplyLost): the execution starts, its reply never arrives, and the SDK sends the
// same request again, which Step Functions answers as the same execution (the same name and
// input, while it is open). A second execution for one submission would show as a violation.
type startLoss struct {
	fraction float64
	mu       sync.Mutex
	rng      *rand.Rand
	lost     atomic.Int64
}

func newStartLoss(fraction float64, seed uint64) *startLoss {
	return &startLoss{fraction: fraction, rng: rand.New(rand.NewPCG(seed, 0x5747))}
}

// lose draws whether the next reply is lost.
func (l *startLoss) lose() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rng.Float64() < l.fraction
}

// client wraps a Step Functions client so that its StartExecution replies are lost at the
// fraction; nil (no loss) returns it as it is.
func (l *startLoss) client(c *sfn.Client) stepFunctions {
	if l == nil || l.fraction == 0 {
		return c
	}
	return &lossyStarts{Client: c, loss: l}
}

// stepFunctions is what the lock's clients need of Step Functions in a simulation.
type stepFunctions interface {
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
	SendTaskFailure(ctx context.Context, in *sfn.SendTaskFailureInput, opts ...func(*sfn.Options)) (*sfn.SendTaskFailureOutput, error)
	DescribeExecution(ctx context.Context, in *sfn.DescribeExecutionInput, opts ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error)
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

// lossyStarts is a Step Functions client whose StartExecution replies are lost at a fraction.
type lossyStarts struct {
	*sfn.Client
	loss *startLoss
}

// StartExecution starts the execution; when the reply is lost, it sends the same request
// again, as the SDK's retry does, and returns that reply.
func (l *lossyStarts) StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	out, err := l.Client.StartExecution(ctx, in, opts...)
	if err != nil || !l.loss.lose() {
		return out, err
	}
	l.loss.lost.Add(1)
	return l.Client.StartExecution(ctx, in, opts...)
}
