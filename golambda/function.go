package golambda

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3assets"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
	"github.com/turnstile-sfn/turnstile/internal/metadata"
)

// unusedDockerImage fills the required BundlingOptions.Image. Bundler.TryBundle always bundles
// locally (or panics), so the CDK never runs it.
const unusedDockerImage = "golang"

// New creates, under a construct named id, a Lambda function built from props.Package (arm64,
// provided.al2023, handler "bootstrap"), its log group and its role, and returns the function.
// The package is resolved from the working directory's Go module (see gobuild.Resolve), so an app may
// build its own packages and those of the modules it requires. It panics, as constructs do, when
// props are invalid or the package cannot be found.
func New(scope constructs.Construct, id *string, props *Props) awslambda.Function {
	props.validate()
	workDir, err := os.Getwd()
	if err != nil {
		panic(fmt.Sprintf("golambda: %v", err))
	}
	source, err := gobuild.Resolve(workDir, *props.Package)
	if err != nil {
		panic(fmt.Sprintf("golambda: Props.Package: %v", err))
	}

	retention := props.LogRetention
	if retention == "" {
		retention = DefaultLogRetention
	}

	group := constructs.NewConstruct(scope, id)
	logGroup := awslogs.NewLogGroup(group, jsii.String("LogGroup"), &awslogs.LogGroupProps{
		Retention:     retention,
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	})
	role := awsiam.NewRole(group, jsii.String("ServiceRole"), &awsiam.RoleProps{
		AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
	})
	logGroup.GrantWrite(role)

	bundler := &Bundler{Source: source}
	code := awslambda.Code_FromAsset(jsii.String(source.ModuleDir), &awss3assets.AssetOptions{
		AssetHashType: awscdk.AssetHashType_OUTPUT,
		Bundling: &awscdk.BundlingOptions{
			Image: awscdk.DockerImage_FromRegistry(jsii.String(unusedDockerImage)),
			Local: bundler,
		},
	})

	memorySize := props.MemorySize
	if memorySize == nil {
		memorySize = jsii.Number(DefaultMemorySize)
	}
	timeout := props.Timeout
	if timeout == nil {
		timeout = awscdk.Duration_Seconds(jsii.Number(DefaultTimeoutSeconds))
	}
	fn := awslambda.NewFunction(group, jsii.String("Function"), &awslambda.FunctionProps{
		Architecture:                 awslambda.Architecture_ARM_64(),
		Runtime:                      awslambda.Runtime_PROVIDED_AL2023(),
		Handler:                      jsii.String(gobuild.BinaryName),
		Code:                         code,
		Role:                         role,
		LogGroup:                     logGroup,
		Environment:                  props.Environment,
		MemorySize:                   memorySize,
		Timeout:                      timeout,
		ReservedConcurrentExecutions: props.ReservedConcurrentExecutions,
		Description:                  props.Description,
	})
	// The local emulator runs the function from the package it is built from.
	fn.Node().DefaultChild().(awscdk.CfnResource).AddMetadata(jsii.String(metadata.GoPackage), jsii.String(source.ImportPath))
	return fn
}
