// Command handoff is the hand-off function of Turnstile's Callback wait strategy (see package
// handoff). The Semaphore construct deploys it with the lock table's name in its environment.
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

	"github.com/turnstile-sfn/turnstile/lambdas/handoff/handoff"
	"github.com/turnstile-sfn/turnstile/lock"
	"github.com/turnstile-sfn/turnstile/metrics"
)

func main() {
	table, err := handoff.TableFromEnv(os.LookupEnv)
	if err != nil {
		log.Fatal(err)
	}
	awsCfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	// The metrics go to standard output, which Lambda sends to CloudWatch Logs.
	m := metrics.NewLoggerFromEnv(os.Stdout, os.LookupEnv, time.Now)
	locks, err := lock.New(table, dynamodb.NewFromConfig(awsCfg), sfn.NewFromConfig(awsCfg), handoff.WaitTimes(m))
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(handoff.New(locks, handoff.WithMetrics(m)).Handle)
}
