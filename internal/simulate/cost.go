package simulate

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/emulator/stack"
	"github.com/turnstile-sfn/turnstile/lambdas/testrunner/runner"
)

// helperTransitions counts the billed state transitions of every execution of the stack's
// machines other than the semaphore (the cleanup machine, the redrive guard): the cost of
// freeing slots, added to the semaphore's own.
func helperTransitions(ctx context.Context, st *stack.Stack, semaphoreArn string) (int, error) {
	client := st.StepFunctionsClient()
	total := 0
	for _, sm := range st.Template.StateMachines {
		if sm.ARN == semaphoreArn {
			continue
		}
		list := sfn.NewListExecutionsPaginator(client, &sfn.ListExecutionsInput{StateMachineArn: aws.String(sm.ARN)})
		for list.HasMorePages() {
			page, err := list.NextPage(ctx)
			if err != nil {
				return 0, fmt.Errorf("simulate: list the executions of %s: %w", sm.Name, err)
			}
			for _, ex := range page.Executions {
				events, err := runner.History(ctx, client, aws.ToString(ex.ExecutionArn))
				if err != nil {
					return 0, err
				}
				total += runner.Transitions(events)
			}
		}
	}
	return total, nil
}
