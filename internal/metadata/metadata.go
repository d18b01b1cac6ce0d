// Package metadata holds the CloudFormation resource metadata keys that Turnstile's constructs
// write and its emulator reads, so both sides spell them the same way.
package metadata

// GoPackage is the metadata key under which a Go Lambda function records the module-relative
// package it is built from, e.g. "lambdas/dowork". The emulator binds handlers by it.
const GoPackage = "turnstile:go-package"
