// Package test holds Turnstile's end-to-end tests: the demo app is synthesized, run in the local
// emulator against a real DynamoDB API server, driven through the Step Functions API with the
// AWS SDK, and checked against the semaphore's promises.
package test
