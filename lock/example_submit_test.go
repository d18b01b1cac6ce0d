package lock_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/lock"
)

// A producer queues ten thousand jobs without starting ten thousand executions: each starts
// when its lock has a slot for it, already holding the slot. The id tells what became of it.
func ExampleClient_Submit() {
	ctx := context.Background()
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Fatal(err)
	}
	locks, err := lock.New("TurnstileLocks", dynamodb.NewFromConfig(cfg), sfn.NewFromConfig(cfg))
	if err != nil {
		log.Fatal(err)
	}
	s, err := locks.Submit(ctx, lock.SubmitRequest{
		Lock:         "prod",
		Limit:        1, // the semaphore's Limit, for a lock that has no live limit yet
		StateMachine: "arn:aws:states:eu-west-1:123456789012:stateMachine:Deploy",
		Input:        `{"environment": "prod", "version": "1.4.2"}`,
	})
	if err != nil {
		log.Fatal(err)
	}
	st, err := locks.Status(ctx, s.Lock, s.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Outcome, st.Execution) // queued (or started) and the execution's ARN
	if st.Outcome == lock.OutcomeQueued {
		if _, err := locks.Cancel(ctx, s.Lock, s.ID, "superseded by 1.4.3"); err != nil {
			log.Fatal(err) // lock.ErrNotQueued: it started meanwhile
		}
	}
}
