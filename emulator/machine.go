package emulator

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// Types of state machines.
const (
	TypeStandard = "STANDARD"
	TypeExpress  = "EXPRESS"
)

// StateMachineOptions are the optional settings of CreateStateMachine.
type StateMachineOptions struct {
	// RoleArn is the execution role, shown in ExecutionStarted events and $$.Execution.RoleArn.
	// Default: arn:aws:iam::<account>:role/StepFunctions-<name>.
	RoleArn string
	// Type must be TypeStandard (the default); Express machines are not supported.
	Type string
}

// StateMachineDescription is what DescribeStateMachine returns.
type StateMachineDescription struct {
	StateMachineArn string
	Name            string
	Definition      string
	RoleArn         string
	Type            string
	CreationDate    time.Time
}

// stateMachine is a created state machine.
type stateMachine struct {
	arn, name, roleArn string
	definition         string
	creationDate       time.Time
	model              *asl.StateMachine
	root               *graph
	// historyLength is the number of events of the last execution that finished, the capacity
	// the next one's history starts with (at most maxHistoryCapacityHint).
	historyLength atomic.Int64
}

// maxHistoryCapacityHint bounds the history capacity an execution reserves up front.
const maxHistoryCapacityHint = 1024

// CreateStateMachine parses, validates and compiles a definition and returns the new machine's
// ARN. An invalid definition is an *APIError with Code InvalidDefinition whose Err holds the
// *asl.DefinitionError values naming each wrong state and field (errors.Is(err,
// asl.ErrInvalidDefinition)); a valid definition using something the emulator does not run
// (JSONata, variables, the distributed Map, activities, a Task resource no registered integration
// supports) wraps asl.ErrUnsupported. Creating the same name again with the same definition and
// role returns the same ARN; with anything different it fails with StateMachineAlreadyExists.
func (em *Emulator) CreateStateMachine(name, definition string, opts StateMachineOptions) (string, error) {
	if err := validateName(name); err != nil {
		return "", err
	}
	if opts.Type != "" && opts.Type != TypeStandard {
		de := &asl.DefinitionError{Field: "Type", Problem: opts.Type + " state machines (the emulator runs STANDARD ones)", Kind: asl.ErrUnsupported}
		return "", &APIError{Code: ErrInvalidDefinition.Code, Message: de.Error(), Err: de}
	}
	if opts.RoleArn == "" {
		opts.RoleArn = fmt.Sprintf("arn:aws:iam::%s:role/StepFunctions-%s", em.opts.Account, name)
	}
	model, err := asl.Parse([]byte(definition))
	if err == nil {
		err = model.Validate()
	}
	var root *graph
	if err == nil {
		c := &compiler{em: em, queryLanguage: model.QueryLanguage}
		raw, _ := jsonvalue.Decode([]byte(definition)) // valid JSON: asl.Parse read it
		root = c.graph("", model.Graph(), raw)
		err = c.err
	}
	if err != nil {
		return "", &APIError{Code: ErrInvalidDefinition.Code, Message: err.Error(), Err: err}
	}
	arn := fmt.Sprintf("arn:aws:states:%s:%s:stateMachine:%s", em.opts.Region, em.opts.Account, name)
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.closed {
		return "", ErrClosed
	}
	if old, ok := em.machines[arn]; ok {
		if old.definition == definition && old.roleArn == opts.RoleArn {
			return arn, nil
		}
		return "", apiError(ErrStateMachineExists, "State Machine Already Exists: '%s'", arn)
	}
	em.machines[arn] = &stateMachine{
		arn: arn, name: name, roleArn: opts.RoleArn, definition: definition,
		creationDate: em.clock.Now(), model: model, root: root,
	}
	return arn, nil
}

// DescribeStateMachine returns a created state machine.
func (em *Emulator) DescribeStateMachine(_ context.Context, arn string) (StateMachineDescription, error) {
	sm, err := em.machine(arn)
	if err != nil {
		return StateMachineDescription{}, err
	}
	return StateMachineDescription{
		StateMachineArn: sm.arn, Name: sm.name, Definition: sm.definition, RoleArn: sm.roleArn,
		Type: TypeStandard, CreationDate: sm.creationDate,
	}, nil
}

// machine looks a state machine up by ARN.
func (em *Emulator) machine(arn string) (*stateMachine, error) {
	if !strings.HasPrefix(arn, "arn:") {
		return nil, apiError(ErrInvalidArn, "Invalid Arn: '%s'", arn)
	}
	em.mu.Lock()
	defer em.mu.Unlock()
	if em.closed {
		return nil, ErrClosed
	}
	sm, ok := em.machines[arn]
	if !ok {
		return nil, apiError(ErrStateMachineDoesNotExist, "State Machine Does Not Exist: '%s'", arn)
	}
	return sm, nil
}

// validateName checks a state machine or execution name as AWS does: 1 to 80 characters, none
// of them whitespace, brackets, wildcards, special or control characters.
func validateName(name string) error {
	if name == "" || len([]rune(name)) > 80 {
		return apiError(ErrInvalidName, "Invalid Name: '%s' (must be 1 to 80 characters)", name)
	}
	for _, r := range name {
		if r <= 0x20 || (r >= 0x7f && r <= 0x9f) || strings.ContainsRune("<>{}[]?*\"#%\\^|~`$&,;:/", r) {
			return apiError(ErrInvalidName, "Invalid Name: '%s'", name)
		}
	}
	return nil
}
