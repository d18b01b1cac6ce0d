// Package golambda creates AWS Lambda functions from Go packages of this module, built for
// arm64 on the provided.al2023 runtime by a local bundling hook written in Go: no Docker.
//
// At synth time the hook runs
//
//	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -tags lambda.norpc -trimpath -buildvcs=false \
//		-ldflags="-s -w" -o <asset dir>/bootstrap ./<package>
//
// in the module root (the nearest directory holding go.mod, found from the working directory),
// and the asset is hashed from that build output, so an unchanged binary is not uploaded again.
// Stacks left out of bundling by the context aws:cdk:bundling-stacks (tests set it to []) skip
// the build. A package that does not compile makes New panic with a *BuildError holding the
// compiler's output.
//
// Each function gets its own log group (with a retention) and its own role, which may only write
// to that log group: no AWSLambdaBasicExecutionRole, no wildcard log permissions.
//
// Usage, in a CDK app run from inside the module:
//
//	fn := golambda.New(stack, jsii.String("DoWork"), &golambda.Props{
//		Package:     jsii.String("lambdas/dowork"),
//		Environment: &map[string]*string{"WORK_DURATION": jsii.String("15s")},
//		Timeout:     awscdk.Duration_Seconds(jsii.Number(60)),
//		// The Lambda-native cap: at most 5 copies run at once; further synchronous
//		// invocations are throttled (Lambda.TooManyRequestsException).
//		ReservedConcurrentExecutions: jsii.Number(5),
//	})
package golambda
