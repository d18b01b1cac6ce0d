package dynamo

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrUnsupportedResource reports a Task resource that this integration does not run.
var ErrUnsupportedResource = errors.New("dynamo: unsupported resource")

// flavor is one of the two DynamoDB integrations of Step Functions.
type flavor int

const (
	// optimized is arn:aws:states:::dynamodb:<getItem|putItem|updateItem|deleteItem>.
	optimized flavor = iota + 1
	// awsSDK is arn:aws:states:::aws-sdk:dynamodb:<action>.
	awsSDK
)

// optimizedActions are the four actions of the optimized integration, by their resource name.
var optimizedActions = map[string]string{
	"getItem":    "GetItem",
	"putItem":    "PutItem",
	"updateItem": "UpdateItem",
	"deleteItem": "DeleteItem",
}

// target is what a resource asks for: an integration and a DynamoDB API operation.
type target struct {
	flavor    flavor
	operation string // PascalCase, as in the X-Amz-Target header: "UpdateItem"
}

// parseResource reads a Task resource such as "arn:aws:states:::aws-sdk:dynamodb:query". The
// error says why a resource is not supported.
func parseResource(resource string) (target, error) {
	rest, ok := strings.CutPrefix(resource, "arn:")
	if !ok {
		return target{}, errors.New("not an ARN")
	}
	partition, rest, ok := strings.Cut(rest, ":")
	if !ok || partition == "" {
		return target{}, errors.New("the ARN has no partition")
	}
	rest, ok = strings.CutPrefix(rest, "states:::")
	if !ok {
		return target{}, errors.New(`not a Step Functions service integration (want arn:<partition>:states:::...)`)
	}
	f := optimized
	if sdk, isSDK := strings.CutPrefix(rest, "aws-sdk:"); isSDK {
		f, rest = awsSDK, sdk
	}
	action, ok := strings.CutPrefix(rest, "dynamodb:")
	if !ok {
		return target{}, errors.New("not a DynamoDB integration")
	}
	action, pattern, hasPattern := strings.Cut(action, ".")
	if hasPattern {
		return target{}, fmt.Errorf("the .%s integration pattern is not supported for DynamoDB: only Request Response (no suffix) is", pattern)
	}
	op, err := f.operation(action)
	if err != nil {
		return target{}, err
	}
	return target{flavor: f, operation: op}, nil
}

// operation maps the action named in a resource to its DynamoDB API operation.
func (f flavor) operation(action string) (string, error) {
	if f == optimized {
		if op, ok := optimizedActions[action]; ok {
			return op, nil
		}
		return "", fmt.Errorf("%q is not an optimized DynamoDB action (getItem, putItem, updateItem, deleteItem); use arn:aws:states:::aws-sdk:dynamodb:%s", action, action)
	}
	first, size := utf8.DecodeRuneInString(action)
	if !unicode.IsLower(first) {
		return "", fmt.Errorf("the action %q must be in camelCase, e.g. getItem", action)
	}
	op := string(unicode.ToUpper(first)) + action[size:]
	if !operations[op] {
		return "", fmt.Errorf("%q is not a DynamoDB API action", action)
	}
	return op, nil
}
