package sfnapi

import (
	"regexp"
	"strings"
)

// The resource types of Step Functions ARNs the API takes.
const (
	resourceStateMachine = "stateMachine"
	resourceExecution    = "execution"
	resourceExpress      = "express"
	resourceMapRun       = "mapRun"
)

var (
	arnPartitionPattern = regexp.MustCompile(`^aws(-[a-z]+)*$`)
	arnRegionPattern    = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-\d$`)
	arnAccountPattern   = regexp.MustCompile(`^\d{12}$`)
)

// resourceParts is how many colon-separated parts follow the resource type in an ARN of each
// type: a state machine has its name and an optional version or alias; an execution, its state
// machine (with "/<label>" for a Map Run's child) and its name; an Express execution, also a
// UUID; a Map Run, its state machine with its label, and a UUID.
var resourceParts = map[string][2]int{
	resourceStateMachine: {1, 2},
	resourceExecution:    {2, 2},
	resourceExpress:      {3, 3},
	resourceMapRun:       {2, 2},
}

// checkARN checks that arn is a well-formed Step Functions ARN of one of the allowed resource
// types, and answers as Step Functions does when it is not.
func checkARN(arn string, allowed ...string) error {
	parts := strings.Split(arn, ":")
	if len(parts) < 7 || parts[0] != "arn" || parts[2] != "states" ||
		!arnPartitionPattern.MatchString(parts[1]) || !arnRegionPattern.MatchString(parts[3]) ||
		!arnAccountPattern.MatchString(parts[4]) {
		return InvalidArn(arn)
	}
	resourceType, rest := parts[5], parts[6:]
	counts, known := resourceParts[resourceType]
	if !known {
		return InvalidArn("Resource type not valid in this context: " + resourceType)
	}
	if len(rest) < counts[0] || len(rest) > counts[1] {
		return InvalidArn(arn)
	}
	for _, part := range rest {
		if part == "" {
			return InvalidArn(arn)
		}
	}
	for _, a := range allowed {
		if a == resourceType {
			return nil
		}
	}
	return InvalidArn("Resource type not valid in this context: " + resourceType)
}
