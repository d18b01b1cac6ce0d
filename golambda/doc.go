// Package golambda creates AWS Lambda functions from Go main packages, built for arm64 on the
// provided.al2023 runtime by a local bundling hook written in Go: no Docker.
//
// A function's package is an import path that the app's go.mod provides, or a directory of the
// app's own module (see gobuild.Resolve; package gobuild is the part of the builder that needs no
// CDK, which the local emulator shares). At synth time the hook runs
//
//	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -tags lambda.norpc -trimpath -buildvcs=false \
//		-ldflags="-s -w" -o <asset dir>/bootstrap ./<package directory>
//
// in the directory of the module that provides the package: the app's own module, or, for a
// package of a module the app requires (Turnstile's own functions, for example), that module's
// directory wherever the go command finds it (the module cache, a replace directive, go.work),
// built with that module's own go.mod. The asset is hashed from the build output, so an
// unchanged binary is not uploaded again. Stacks left out of bundling by the context
// aws:cdk:bundling-stacks (tests set it to []) skip the build. A package that does not compile
// makes New panic with a *gobuild.BuildError holding the compiler's output; a missing go command, a
// package the go command cannot find and a package that is not a main package are named errors
// (gobuild.ErrGoNotFound, ErrPackageNotFound, ErrNotMain).
//
// Each function gets its own log group (with a retention) and its own role, which may only write
// to that log group: no AWSLambdaBasicExecutionRole, no wildcard log permissions. New records the
// package's import path in the function's metadata, so that `turnstile simulate` can build the
// same package for the local machine and run it through the Lambda Runtime API.
//
// Usage, in a CDK app run from inside its Go module:
//
//	fn := golambda.New(stack, jsii.String("Work"), &golambda.Props{
//		Package:     jsii.String("example.com/app/cmd/work"), // or "cmd/work"
//		Environment: &map[string]*string{"STAGE": jsii.String("prod")},
//		Timeout:     awscdk.Duration_Seconds(jsii.Number(60)),
//		// The Lambda-native cap: at most 5 copies run at once; further synchronous
//		// invocations are throttled (Lambda.TooManyRequestsException).
//		ReservedConcurrentExecutions: jsii.Number(5),
//	})
package golambda
