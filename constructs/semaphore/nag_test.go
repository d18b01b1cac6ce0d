//lint:file-ignore SA1019 the assertions API reads annotations only through cxapi.SynthesisMessage, whose Go binding is marked deprecated; it has no other accessor

package semaphore_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
	"github.com/cdklabs/cdk-nag-go/cdknag/v2"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// TestNagTravelsWithTheConstruct runs cdk-nag's AwsSolutions checks on an app of a user's shape
// (every default: Callback, cleanup, reconciler, redrive guard; per-key locks; a Lambda work
// function) and finds no error on Turnstile's resources: the constructs record their own reasoned
// suppressions, and the checks did run (they report the accepted findings as ignored).
func TestNagTravelsWithTheConstruct(t *testing.T) {
	app := awscdk.NewApp(&awscdk.AppProps{Context: &map[string]any{"aws:cdk:bundling-stacks": []string{}}})
	stack := awscdk.NewStack(app, jsii.String("UserApp"), nil)
	semaphore.New(stack, jsii.String("Lock"), &semaphore.Props{
		LockNamePath: "$.tenant",
		Limit:        3,
		WorkFunction: echoFunction(stack, "Work"),
	})
	awscdk.Aspects_Of(app).Add(cdknag.NewAwsSolutionsChecks(&cdknag.NagPackProps{Verbose: jsii.Bool(true), LogIgnores: jsii.Bool(true)}), nil)
	annotations := assertions.Annotations_FromStack(stack)
	rules := assertions.Match_StringLikeRegexp(jsii.String("AwsSolutions-.*"))
	for _, msg := range *annotations.FindError(jsii.String("*"), rules) {
		if strings.HasPrefix(*msg.Id, "/UserApp/Lock/") {
			t.Errorf("cdk-nag error on Turnstile's resource %s: %v", *msg.Id, msg.Entry.Data)
		}
	}
	var ignored int
	for _, msg := range *annotations.FindInfo(jsii.String("*"), rules) {
		if strings.HasPrefix(*msg.Id, "/UserApp/Lock/") {
			ignored++
		}
	}
	if ignored == 0 {
		t.Error("cdk-nag reported no ignored finding on Turnstile's resources: the checks did not run")
	}
}
