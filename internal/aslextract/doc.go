// Command aslextract writes the Amazon States Language definition of every state machine in a
// synthesized cloud assembly to its own file, so that the definitions can be read, diffed and
// checked with asl-validator.
//
// Usage (make synth runs it after cdk synth):
//
//	go run ./internal/aslextract [-cdk-out cdk.out] [-out cdk.out/asl]
//
// For each AWS::StepFunctions::StateMachine in each *.template.json under -cdk-out it writes
// <out>/<LogicalId>.asl.json, indented, with the fields in the order of the template. The
// definition is taken from DefinitionString (a string or an Fn::Join) or Definition, with
// DefinitionSubstitutions applied. CloudFormation intrinsics are replaced by placeholders of the
// right shape, so that the result is valid ASL: AWS::Partition is "aws", AWS::Region is
// "us-east-1", AWS::AccountId is "123456789012", a resource's Arn is an ARN of that resource
// type named by its logical ID, and a Ref is what CloudFormation returns for that type (a name,
// an ARN or a URL) built the same way. The output directory is emptied of *.asl.json first, so
// machines that no longer exist leave no file behind.
package main
