// Command dowork is the demo work Lambda function of Turnstile: it checks that its execution
// holds a slot (package slot), then sleeps for a configured time and fails at a configured rate. The logic lives in package work; this is the Lambda entry point.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/lambdas/dowork/work"
	"github.com/turnstile-sfn/turnstile/slot"
)

func main() {
	awsCfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	ddb := dynamodb.NewFromConfig(awsCfg)
	verify := func(ctx context.Context) error { return slot.Verify(ctx, ddb) }
	lambda.Start(work.EnvHandler(os.LookupEnv, work.WithSlotCheck(verify)))
}
