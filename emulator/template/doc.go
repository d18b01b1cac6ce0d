// Package template reads a synthesized CloudFormation stack (a "*.template.json" file or a
// "cdk.out" cloud assembly) and resolves it into the typed local resources the emulator runs:
// DynamoDB tables, Lambda functions, Step Functions state machines, EventBridge rules, SQS
// queues and CloudWatch alarms.
//
// Resolution evaluates the intrinsic functions a CDK app emits — Ref (resources, parameters
// with a Default and the pseudo parameters AWS::Region, AWS::AccountId, AWS::Partition,
// AWS::URLSuffix, AWS::StackName, AWS::StackId and AWS::NoValue), Fn::GetAtt (both forms),
// Fn::Join, Fn::Sub (with ${!Literal}), Fn::Select, Fn::Split, Fn::If with the Conditions
// section, Fn::Base64, Fn::GetAZs and Fn::FindInMap — with the Ref and Fn::GetAtt semantics
// CloudFormation documents for each resource type. A resource without an explicit name
// property gets the deterministic physical name "<StackName>-<LogicalId>", trimmed to AWS's
// length limit for its type. State machine definitions come out as the ASL text the service
// would run, DefinitionSubstitutions applied.
//
// Only the properties the emulator needs are resolved, so template parts it does not run (IAM
// policies, asset locations, the CDKMetadata resource, the bootstrap-version Rules section)
// never make loading fail. What cannot be resolved is reported as a *ResolveError naming the
// resource's logical ID and the property path, wrapping a sentinel such as ErrUnknownReference
// or ErrNotSupported.
//
// Usage:
//
//	tpl, err := template.Load("cdk.out", template.Options{StackName: "TurnstileDemo"})
//	if err != nil {
//		return err
//	}
//	for _, sm := range tpl.StateMachines {
//		machine, err := asl.Parse([]byte(sm.Definition))
//		// ... register machine under sm.ARN
//	}
//	fn, ok := tpl.Function("arn:aws:lambda:us-east-1:000000000000:function:TurnstileDemo-WorkFn12345678")
package template
