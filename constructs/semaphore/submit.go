package semaphore

import (
	"fmt"
	"strconv"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/golambda"
	"github.com/turnstile-sfn/turnstile/internal/nag"
	"github.com/turnstile-sfn/turnstile/lock"
)

// newSubmit creates the submit function (Props.Submissions): it queues execution inputs on the
// semaphore's locks and starts those that find a slot (lock.Client.Submit). It reads and writes
// the lock table, starts the machine's executions, completes its task tokens (a submission that
// finds a free slot admits an older parked waiter first) and describes its executions (a
// name that exists already); with several locks or a total cap it also describes the machine,
// whose definition lists each input's locks.
func newSubmit(scope constructs.Construct, table awsdynamodb.ITable, sm awsstepfunctions.StateMachine, p *Props) awslambda.Function {
	env := map[string]*string{
		machines.EnvReconcilerLockTable:       table.TableName(),
		machines.EnvReconcilerStateMachineArn: sm.StateMachineArn(),
		machines.EnvReconcilerLimit:           jsii.String(strconv.Itoa(p.Limit)),
	}
	// With several locks or a total cap the function reads the machine's definition at cold
	// start (its Prepare Locks expression, machines.SemaphoreInputLocks): no copy of the locks in
	// the environment, whose 4 KB would bound their number.
	several := len(p.Locks) > 0 || p.TotalLimit != 0
	switch {
	case several:
		env[machines.EnvSubmitSeveralLocks] = jsii.String("true")
	case p.LockName != "":
		env[machines.EnvSubmitLockName] = jsii.String(p.LockName)
	default:
		env[machines.EnvSubmitLockNamePath] = jsii.String(p.LockNamePath)
	}
	if p.PriorityPath != "" {
		ageing := p.PriorityAgeing
		if ageing == 0 {
			ageing = DefaultPriorityAgeing
		}
		env[machines.EnvSubmitPriorityPath] = jsii.String(p.PriorityPath)
		env[machines.EnvSubmitPriorityAgeing] = jsii.String(strconv.Itoa(ageing))
	}
	if p.WeightPath != "" {
		env[machines.EnvSubmitWeightPath] = jsii.String(p.WeightPath)
	}
	if p.SubmissionTTL != nil {
		env[machines.EnvSubmitTTL] = jsii.String(fmt.Sprintf("%.0fs", *p.SubmissionTTL.ToSeconds(nil)))
	}
	fn := golambda.New(scope, jsii.String(SubmitID), &golambda.Props{
		Package:     jsii.String(SubmitPackage),
		Description: jsii.String("Turnstile submit: queues execution inputs on the semaphore's lock; each starts when a slot is free"),
		Timeout:     awscdk.Duration_Seconds(jsii.Number(60)),
		Environment: &env,
	})
	table.Grant(fn, *jsii.Strings(lock.ClientActions...)...)
	if key := table.EncryptionKey(); key != nil {
		key.GrantEncryptDecrypt(fn)
	}
	actions := []string{"states:StartExecution", "states:SendTaskSuccess"}
	if several {
		actions = append(actions, "states:DescribeStateMachine")
	}
	fn.AddToRolePolicy(statement(actions, sm.StateMachineArn()))
	fn.AddToRolePolicy(statement([]string{"states:DescribeExecution"}, executionsOf(sm)))
	nag.Suppress(fn.Role(), submitSuppression)
	return fn
}

// executionsOf is the ARN pattern of sm's executions.
func executionsOf(sm awsstepfunctions.StateMachine) *string {
	return awscdk.Fn_Join(jsii.String(""), &[]*string{
		jsii.String("arn:"), awscdk.Aws_PARTITION(), jsii.String(":states:"), awscdk.Aws_REGION(), jsii.String(":"),
		awscdk.Aws_ACCOUNT_ID(), jsii.String(":execution:"),
		awscdk.Fn_Select(jsii.Number(6), awscdk.Fn_Split(jsii.String(":"), sm.StateMachineArn(), nil)), jsii.String(":*"),
	})
}

// submitSuppression is the finding accepted on the submit function's role.
var submitSuppression = nag.Suppression{
	RuleID:           "AwsSolutions-IAM5",
	AppliesToPattern: nag.ExecutionsOfOneMachine,
	Reason: "the submit function describes the executions it starts, of the semaphore's state machine, " +
		"whose names are made at run time: the grant covers that machine's executions only",
}
