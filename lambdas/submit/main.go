// Command submit is the submit function of Turnstile's admission control (see package
// submit). The Semaphore construct deploys it when Props.Submissions is on.
package main

import (
	"context"
	"log"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/lambdas/submit/submit"
	"github.com/turnstile-sfn/turnstile/lock"
)

func main() {
	cfg, err := submit.ConfigFromEnv(os.LookupEnv)
	if err != nil {
		log.Fatal(err)
	}
	awsCfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	sfnClient := sfn.NewFromConfig(awsCfg)
	if cfg, err = submit.LoadInputLocks(context.Background(), sfnClient, cfg); err != nil {
		log.Fatal(err)
	}
	locks, err := lock.New(cfg.TableName, dynamodb.NewFromConfig(awsCfg), sfnClient)
	if err != nil {
		log.Fatal(err)
	}
	h, err := submit.New(cfg, locks)
	if err != nil {
		log.Fatal(err)
	}
	lambda.Start(h.Handle)
}
