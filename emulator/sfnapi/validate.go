package sfnapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the Step Functions API.
const (
	// MaxPayloadBytes is the largest execution input or task output, in UTF-8 bytes (256 KiB).
	MaxPayloadBytes = 262144
	// MaxNameLength is the longest execution name.
	MaxNameLength = 80
	// MaxPageSize is the largest maxResults of the List and Get operations.
	MaxPageSize = 1000

	maxARNLength         = 256 // stateMachineArn, executionArn
	maxMapRunARNLength   = 2000
	maxTraceHeader       = 256
	maxErrorLength       = 256
	maxCauseLength       = 32768
	maxTaskTokenLength   = 2048
	maxNextTokenLength   = 1024
	maxClientTokenLength = 64
)

// request is a decoded request: validate checks it as AWS does before the backend sees it, and
// fills in AWS's defaults.
type request interface {
	validate() error
}

// constraints collects the violated constraints of a request, which AWS reports together in one
// ValidationException: "2 validation errors detected: Value … at 'name' failed to satisfy
// constraint: …; Value … at 'input' …". The values of sensitive members are not repeated.
type constraints []string

func (c *constraints) add(member, value string, sensitive bool, constraint string) {
	if sensitive {
		*c = append(*c, fmt.Sprintf("Value at '%s' failed to satisfy constraint: %s", member, constraint))
		return
	}
	*c = append(*c, fmt.Sprintf("Value '%s' at '%s' failed to satisfy constraint: %s", value, member, constraint))
}

// required checks that a required member is present.
func (c *constraints) required(member, value string) {
	if value == "" {
		*c = append(*c, fmt.Sprintf("Value null at '%s' failed to satisfy constraint: Member must not be null", member))
	}
}

// length checks the length of an optional member, in bytes, when it is present.
func (c *constraints) length(member, value string, maxLen int, sensitive bool) {
	if len(value) > maxLen {
		c.add(member, value, sensitive, fmt.Sprintf("Member must have length less than or equal to %d", maxLen))
	}
}

// enum checks that an optional member is one of the allowed values.
func (c *constraints) enum(member, value string, allowed []string) {
	if value == "" {
		return
	}
	for _, a := range allowed {
		if a == value {
			return
		}
	}
	c.add(member, value, false, "Member must satisfy enum value set: ["+strings.Join(allowed, ", ")+"]")
}

// pageSize checks maxResults.
func (c *constraints) pageSize(maxResults int32) {
	switch {
	case maxResults < 0:
		c.add("maxResults", fmt.Sprint(maxResults), false, "Member must have value greater than or equal to 0")
	case maxResults > MaxPageSize:
		c.add("maxResults", fmt.Sprint(maxResults), false, fmt.Sprintf("Member must have value less than or equal to %d", MaxPageSize))
	}
}

// err returns the ValidationException for the violations, or nil.
func (c constraints) err() error {
	switch len(c) {
	case 0:
		return nil
	case 1:
		return ValidationException("1 validation error detected: " + c[0])
	default:
		return ValidationException(fmt.Sprintf("%d validation errors detected: %s", len(c), strings.Join(c, "; ")))
	}
}

// checkName checks an execution name against the characters Step Functions forbids: white
// space, brackets < > { } [ ], wildcards ? *, the special characters " # % \ ^ | ~ ` $ & , ; : /,
// control characters and invalid UTF-8.
func checkName(name string) error {
	if !utf8.ValidString(name) {
		return InvalidName(name)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || r <= 0x1f || (r >= 0x7f && r <= 0x9f) || strings.ContainsRune(`<>{}[]?*"#%\^|~`+"`"+`$&,;:/`, r) {
			return InvalidName(name)
		}
	}
	return nil
}

// jsonProblem describes why text is not a JSON document, or returns "" when it is one.
func jsonProblem(text string) string {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return err.Error()
	}
	return ""
}

func (in *StartExecutionInput) validate() error {
	var c constraints
	c.required("stateMachineArn", in.StateMachineArn)
	c.length("stateMachineArn", in.StateMachineArn, maxARNLength, false)
	c.length("name", in.Name, MaxNameLength, false)
	c.length("input", in.Input, MaxPayloadBytes, true)
	c.length("traceHeader", in.TraceHeader, maxTraceHeader, false)
	if err := c.err(); err != nil {
		return err
	}
	if err := checkARN(in.StateMachineArn, resourceStateMachine); err != nil {
		return err
	}
	if in.Name != "" {
		if err := checkName(in.Name); err != nil {
			return err
		}
	}
	if in.Input == "" {
		in.Input = "{}"
	}
	if problem := jsonProblem(in.Input); problem != "" {
		return InvalidExecutionInput(problem)
	}
	return nil
}

func (in *DescribeExecutionInput) validate() error {
	var c constraints
	c.required("executionArn", in.ExecutionArn)
	c.length("executionArn", in.ExecutionArn, maxARNLength, false)
	c.enum("includedData", string(in.IncludedData), includedDataValues)
	if err := c.err(); err != nil {
		return err
	}
	return checkARN(in.ExecutionArn, resourceExecution, resourceExpress)
}

func (in *ListExecutionsInput) validate() error {
	var c constraints
	c.length("stateMachineArn", in.StateMachineArn, maxARNLength, false)
	c.length("mapRunArn", in.MapRunArn, maxMapRunARNLength, false)
	c.enum("statusFilter", string(in.StatusFilter), executionStatuses)
	c.enum("redriveFilter", string(in.RedriveFilter), redriveFilters)
	c.pageSize(in.MaxResults)
	c.length("nextToken", in.NextToken, maxNextTokenLength, false)
	if err := c.err(); err != nil {
		return err
	}
	switch {
	case (in.StateMachineArn == "") == (in.MapRunArn == ""):
		return ValidationException("Exactly one of stateMachineArn and mapRunArn must be provided")
	case in.StateMachineArn != "":
		return checkARN(in.StateMachineArn, resourceStateMachine)
	default:
		return checkARN(in.MapRunArn, resourceMapRun)
	}
}

func (in *GetExecutionHistoryInput) validate() error {
	var c constraints
	c.required("executionArn", in.ExecutionArn)
	c.length("executionArn", in.ExecutionArn, maxARNLength, false)
	c.pageSize(in.MaxResults)
	c.length("nextToken", in.NextToken, maxNextTokenLength, false)
	if err := c.err(); err != nil {
		return err
	}
	return checkARN(in.ExecutionArn, resourceExecution, resourceExpress)
}

func (in *StopExecutionInput) validate() error {
	var c constraints
	c.required("executionArn", in.ExecutionArn)
	c.length("executionArn", in.ExecutionArn, maxARNLength, false)
	c.length("error", in.Error, maxErrorLength, true)
	c.length("cause", in.Cause, maxCauseLength, true)
	if err := c.err(); err != nil {
		return err
	}
	return checkARN(in.ExecutionArn, resourceExecution, resourceExpress)
}

func (in *RedriveExecutionInput) validate() error {
	var c constraints
	c.required("executionArn", in.ExecutionArn)
	c.length("executionArn", in.ExecutionArn, maxARNLength, false)
	c.length("clientToken", in.ClientToken, maxClientTokenLength, false)
	if err := c.err(); err != nil {
		return err
	}
	return checkARN(in.ExecutionArn, resourceExecution)
}

func (in *SendTaskSuccessInput) validate() error {
	var c constraints
	c.required("taskToken", in.TaskToken)
	c.length("taskToken", in.TaskToken, maxTaskTokenLength, false)
	c.required("output", in.Output)
	c.length("output", in.Output, MaxPayloadBytes, true)
	if err := c.err(); err != nil {
		return err
	}
	if problem := jsonProblem(in.Output); problem != "" {
		return InvalidOutput(problem)
	}
	return nil
}

func (in *SendTaskFailureInput) validate() error {
	var c constraints
	c.required("taskToken", in.TaskToken)
	c.length("taskToken", in.TaskToken, maxTaskTokenLength, false)
	c.length("error", in.Error, maxErrorLength, true)
	c.length("cause", in.Cause, maxCauseLength, true)
	return c.err()
}

func (in *SendTaskHeartbeatInput) validate() error {
	var c constraints
	c.required("taskToken", in.TaskToken)
	c.length("taskToken", in.TaskToken, maxTaskTokenLength, false)
	return c.err()
}

func (in *DescribeStateMachineInput) validate() error {
	var c constraints
	c.required("stateMachineArn", in.StateMachineArn)
	c.length("stateMachineArn", in.StateMachineArn, maxARNLength, false)
	c.enum("includedData", string(in.IncludedData), includedDataValues)
	if err := c.err(); err != nil {
		return err
	}
	return checkARN(in.StateMachineArn, resourceStateMachine)
}

func (in *ListStateMachinesInput) validate() error {
	var c constraints
	c.pageSize(in.MaxResults)
	c.length("nextToken", in.NextToken, maxNextTokenLength, false)
	return c.err()
}
