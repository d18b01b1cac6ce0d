// Command processorder is the app's own Lambda function: it processes one order, behind the
// semaphore. It runs unchanged on AWS and in `turnstile simulate`.
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/slot"
)

// Order is the execution input the semaphore passes on.
type Order struct {
	Tenant string `json:"tenant"`
	ID     int    `json:"index"`
}

// Receipt is what the function returns.
type Receipt struct {
	Tenant    string `json:"tenant"`
	ID        int    `json:"id"`
	Processed string `json:"processed"`
}

var ddb *dynamodb.Client

func handle(ctx context.Context, order Order) (Receipt, error) {
	// First, check that this execution holds a slot (a redriven execution may not).
	if err := slot.Verify(ctx, ddb); err != nil {
		return Receipt{}, err
	}
	// The work the lock protects: here, a slow call to the tenant's backend.
	select {
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
		return Receipt{}, ctx.Err()
	}
	return Receipt{Tenant: order.Tenant, ID: order.ID, Processed: fmt.Sprintf("order %d of %s", order.ID, order.Tenant)}, nil
}

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	ddb = dynamodb.NewFromConfig(cfg)
	lambda.Start(handle)
}
