// Package metadata holds the CloudFormation resource metadata keys that Turnstile's constructs
// write and its emulator reads, so both sides spell them the same way.
package metadata

// GoPackage is the metadata key under which a Go Lambda function records the import path of the
// package it is built from, e.g. "github.com/turnstile-sfn/turnstile/lambdas/dowork". The
// emulator runs the function from it: a registered handler, or the package built for this
// machine.
const GoPackage = "turnstile:go-package"
