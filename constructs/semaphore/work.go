package semaphore

import (
	"encoding/json"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// work is the protected work in the form the state machine needs it: the branch graph, the
// DefinitionSubstitutions its placeholders refer to, and the permissions it needs.
type work struct {
	graph         *asl.Graph
	substitutions map[string]*string
	statements    []awsiam.PolicyStatement
}

// newWork builds the work of whichever of Work, WorkFunction and WorkStateMachine is set.
func newWork(scope awscdk.Stack, p *Props) work {
	switch {
	case p.WorkFunction != nil:
		return work{
			graph:         machines.LambdaWork(machines.Placeholder(machines.SubstitutionWorkFunctionArn)),
			substitutions: map[string]*string{machines.SubstitutionWorkFunctionArn: p.WorkFunction.FunctionArn()},
			// The task invokes the unqualified ARN: no version or alias wildcard is needed.
			statements: []awsiam.PolicyStatement{statement([]string{"lambda:InvokeFunction"}, p.WorkFunction.FunctionArn())},
		}
	case p.WorkStateMachine != nil:
		return stateMachineWork(scope, p.WorkStateMachine)
	default:
		return chainWork(p.Work)
	}
}

// stateMachineWork runs a child execution with startExecution.sync:2, which needs to start it,
// to follow and stop its executions, and the managed EventBridge rule through which Step
// Functions learns that the child ended.
func stateMachineWork(stack awscdk.Stack, child awsstepfunctions.IStateMachine) work {
	arn := child.StateMachineArn()
	name := stack.SplitArn(arn, awscdk.ArnFormat_COLON_RESOURCE_NAME).ResourceName
	executions := stack.FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("states"),
		Resource:     jsii.String("execution"),
		ResourceName: jsii.String(*name + ":*"),
		ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
	rule := stack.FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("events"),
		Resource:     jsii.String("rule"),
		ResourceName: jsii.String("StepFunctionsGetEventsForStepFunctionsExecutionRule"),
	})
	return work{
		graph:         machines.StateMachineWork(machines.Placeholder(machines.SubstitutionWorkStateMachineArn)),
		substitutions: map[string]*string{machines.SubstitutionWorkStateMachineArn: arn},
		statements: []awsiam.PolicyStatement{
			statement([]string{"states:StartExecution"}, arn),
			statement([]string{"states:DescribeExecution", "states:StopExecution"}, executions),
			statement([]string{"events:PutTargets", "events:PutRule", "events:DescribeRule"}, rule),
		},
	}
}

// chainWork renders the caller's chain with CDK's own renderer (a StateGraph) and reads it
// into the asl model; the graph also collects the permissions of the chain's tasks.
func chainWork(chain awsstepfunctions.IChainable) work {
	graph := awsstepfunctions.NewStateGraph(chain.StartState(), jsii.String("semaphore work"))
	doc := graph.ToGraphJson(awsstepfunctions.QueryLanguage_JSON_PATH)
	raw, err := json.Marshal(doc)
	if err != nil {
		invalid("Props.Work cannot be rendered: %v", err)
	}
	m, err := asl.Parse(raw)
	if err != nil {
		invalid("Props.Work cannot be embedded: %v", err)
	}
	g := m.Graph()
	g.Comment = ""
	var statements []awsiam.PolicyStatement
	if s := graph.PolicyStatements(); s != nil {
		statements = *s
	}
	return work{graph: g, statements: statements}
}

// statement allows actions on one resource.
func statement(actions []string, resource *string) awsiam.PolicyStatement {
	return awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings(actions...),
		Resources: &[]*string{resource},
	})
}
