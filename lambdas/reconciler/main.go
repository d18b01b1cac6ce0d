// Command reconciler is the Lambda that frees the slots of dead executions on a schedule (see
// package reconcile). Its configuration comes from the environment the Cleanup construct sets.
package main

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/lambdas/reconciler/reconcile"
	"github.com/turnstile-sfn/turnstile/metrics"
)

func main() {
	cfg, err := reconcile.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		log.Fatal(err)
	}
	awsCfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	// The metrics go to standard output, which Lambda sends to CloudWatch Logs.
	m := metrics.NewLoggerFromEnv(os.Stdout, os.LookupEnv, time.Now)
	r, err := reconcile.New(cfg, sfn.NewFromConfig(awsCfg), dynamodb.NewFromConfig(awsCfg), reconcile.WithLogf(log.Printf), reconcile.WithMetrics(m))
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(r.Handle)
}
