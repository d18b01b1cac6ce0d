package ratelimit_test

import (
	"context"
	"log"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/ratelimit"
)

// Clients anywhere share a partner API's 10 calls a second through the lock table.
func Example() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	limiter, err := ratelimit.New(ratelimit.Config{
		Table: ratelimit.Table{Client: dynamodb.NewFromConfig(cfg), Name: "Locks"},
		Name:  "partner-api",
		Limit: 10,
		Burst: 10,
	})
	if err != nil {
		log.Fatal(err)
	}
	for range 100 {
		if err := limiter.Wait(ctx); err != nil {
			log.Fatal(err)
		}
		// call the partner API
	}
}

// A fleet of workers keeps its aggregate consumed write capacity on a table under 500 units a
// second, whatever the number of workers.
func ExampleWithCapacityLimit() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	writes, err := ratelimit.NewAdaptive(ctx, ratelimit.AdaptiveConfig{
		Table:  ratelimit.Table{Client: dynamodb.NewFromConfig(cfg), Name: "Locks"},
		Name:   "orders-writes",
		Target: 500,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer func() {
		if err := writes.Close(context.Background()); err != nil {
			log.Print(err)
		}
	}()
	orders := dynamodb.NewFromConfig(cfg, ratelimit.WithCapacityLimit(nil, writes))
	_ = orders // every PutItem, UpdateItem, ... through orders now waits its turn
}
