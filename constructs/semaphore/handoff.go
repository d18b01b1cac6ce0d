package semaphore

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/golambda"
	"github.com/turnstile-sfn/turnstile/internal/nag"
	"github.com/turnstile-sfn/turnstile/lock"
)

// newHandOff creates the hand-off function of the Callback strategy: it reads and writes the
// lock item (GetItem, UpdateItem on the lock table only).
func newHandOff(scope constructs.Construct, table awsdynamodb.ITable) awslambda.Function {
	fn := golambda.New(scope, jsii.String(HandOffID), &golambda.Props{
		Package:     jsii.String(HandOffPackage),
		Description: jsii.String("Turnstile hand-off: parks waiting executions in the lock's queue and hands freed slots to the oldest"),
		Timeout:     awscdk.Duration_Seconds(jsii.Number(30)),
		Environment: &map[string]*string{machines.EnvHandOffLockTable: table.TableName()},
	})
	table.Grant(fn, *jsii.Strings(lock.ClientActions...)...)
	if key := table.EncryptionKey(); key != nil {
		key.GrantEncryptDecrypt(fn)
	}
	return fn
}

// grantHandOff lets the machine invoke the hand-off function, and the function complete the
// machine's task tokens, start its submissions and describe its executions (to skip dead
// waiters). The function's
// grants go into a policy of their own: its default policy would make the function depend on
// the machine, which depends on the function through its definition.
func grantHandOff(scope constructs.Construct, fn awslambda.Function, sm awsstepfunctions.StateMachine) {
	// The function itself, unqualified: no version or alias (GrantInvoke would add "ARN:*").
	sm.AddToRolePolicy(statement([]string{"lambda:InvokeFunction"}, fn.FunctionArn()))
	executions := executionsOf(sm)
	policy := awsiam.NewPolicy(scope, jsii.String(HandOffPolicyID), &awsiam.PolicyProps{
		Roles: &[]awsiam.IRole{fn.Role()},
		Statements: &[]awsiam.PolicyStatement{
			awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				// StartExecution: a release that reaches a submission starts it (lock.Client.Submit).
				Actions:   jsii.Strings("states:SendTaskSuccess", "states:StartExecution"),
				Resources: jsii.Strings(*sm.StateMachineArn()),
			}),
			awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions:   jsii.Strings("states:DescribeExecution"),
				Resources: &[]*string{executions},
			}),
		},
	})
	nag.Suppress(policy, handOffSuppression)
}

// handOffSuppression is the finding accepted on the hand-off function's own policy.
var handOffSuppression = nag.Suppression{
	RuleID:           "AwsSolutions-IAM5",
	AppliesToPattern: nag.ExecutionsOfOneMachine,
	Reason: "the hand-off function describes the waiters it wakes, executions of the semaphore's state machine " +
		"whose names are made at run time, to skip the dead ones: the grant covers that machine's executions only",
}
