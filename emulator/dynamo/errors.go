package dynamo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl"
)

// ErrInvalidParameters reports effective parameters that cannot be sent to DynamoDB at all: not
// a JSON object, or not encodable as JSON.
var ErrInvalidParameters = errors.New("dynamo: invalid parameters")

// ErrNotEmulated reports a DynamoDB action that the local DynamoDB server does not implement
// (DynamoDB Local lacks, e.g., backups and global tables).
var ErrNotEmulated = errors.New("dynamo: action not implemented by the local DynamoDB server")

// Error names and causes follow what Step Functions reports (recorded against AWS, and
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-ddb.html, "Exception prefix
// differences"; the naming rule is in
// https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html):
//
//   - The optimized integration calls DynamoDB with the AWS SDK for Java v1. The name is
//     "DynamoDB." (upper-case DB) and the SDK's exception class: the error code for a modeled
//     error ("DynamoDB.ConditionalCheckFailedException"), "AmazonDynamoDBException" for any
//     other ("DynamoDB.AmazonDynamoDBException" for a ValidationException). The cause is the
//     SDK's message: "The conditional request failed (Service: AmazonDynamoDBv2; Status Code:
//     400; Error Code: ConditionalCheckFailedException; Request ID: ...; Proxy: null)".
//   - The AWS SDK integration uses the AWS SDK for Java v2: "DynamoDb." (mixed case) and the
//     class, "DynamoDbException" for unmodeled codes ("DynamoDb.DynamoDbException" for a
//     ValidationException). Cause: "The conditional request failed (Service: DynamoDb, Status
//     Code: 400, Request ID: ...)".
//
// As the AWS SDK integration page says, a class name always ends in "Exception", even when the
// error code does not: InternalServerError is "DynamoDB.InternalServerErrorException".
const (
	optimizedPrefix  = "DynamoDB"
	optimizedGeneric = "AmazonDynamoDBException"
	awsSDKPrefix     = "DynamoDb"
	awsSDKGeneric    = "DynamoDbException"

	// clientException is the Java SDKs' class for a request that got no answer from the service.
	// AWS documents it for Lambda ("Lambda.SdkClientException"); the emulator names a failure to
	// reach the DynamoDB server the same way, so a Retry can match it.
	clientException = "SdkClientException"
)

// serviceError is an error reply of the DynamoDB API.
type serviceError struct {
	code      string // e.g. "ConditionalCheckFailedException"
	message   string
	status    int
	requestID string
}

// errorName is the name Step Functions gives an error code in this integration.
func (f flavor) errorName(code string) string {
	prefix, generic := optimizedPrefix, optimizedGeneric
	if f == awsSDK {
		prefix, generic = awsSDKPrefix, awsSDKGeneric
	}
	if !modeledErrors[code] {
		return prefix + "." + generic
	}
	if !strings.HasSuffix(code, "Exception") {
		code += "Exception"
	}
	return prefix + "." + code
}

// failure turns a DynamoDB error reply into the error Step Functions reports.
func (f flavor) failure(e serviceError) *asl.Error {
	message := e.message
	if message == "" {
		message = e.code
	}
	var cause string
	if f == optimized {
		cause = fmt.Sprintf("%s (Service: AmazonDynamoDBv2; Status Code: %d; Error Code: %s; Request ID: %s; Proxy: null)",
			message, e.status, e.code, e.requestID)
	} else {
		cause = fmt.Sprintf("%s (Service: DynamoDb, Status Code: %d, Request ID: %s)", message, e.status, e.requestID)
	}
	return asl.NewError(f.errorName(e.code), cause)
}

// clientFailure is the error for a request that got no usable answer.
func (f flavor) clientFailure(cause string) *asl.Error {
	prefix := optimizedPrefix
	if f == awsSDK {
		prefix = awsSDKPrefix
	}
	return asl.NewError(prefix+"."+clientException, cause)
}

// runtimeFailure is an error the emulator raises itself, wrapping sentinel for errors.Is. Its
// name is States.Runtime: like a definition error in AWS it is neither retried nor caught by
// States.ALL.
func runtimeFailure(sentinel error, cause string) error {
	return fmt.Errorf("%w: %w", sentinel, asl.NewError(asl.ErrorRuntime, cause))
}
