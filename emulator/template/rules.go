package template

import (
	"bytes"
	"encoding/json"
)

// Rule is an AWS::Events::Rule: an event pattern or a schedule, and its targets.
type Rule struct {
	// LogicalID is the resource's logical ID in the template.
	LogicalID string
	// CDKPath is the construct path CDK recorded in the aws:cdk:path metadata ("" if none).
	CDKPath string
	// Name is the physical rule name (Name, or the emulator's deterministic name).
	Name string
	// ARN is the rule's ARN.
	ARN string
	// EventBusName is the bus the rule belongs to ("default" unless set).
	EventBusName string
	// EventPattern is the resolved event pattern as a JSON value (objects are map[string]any,
	// numbers json.Number); nil for a schedule-only rule. A pattern given as a JSON string in
	// the template is decoded.
	EventPattern any
	// ScheduleExpression is rate(...) or cron(...); "" for a pattern rule.
	ScheduleExpression string
	// State is ENABLED (the default), DISABLED or ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS.
	State string
	// Targets are the rule's targets, in template order.
	Targets []Target
}

// Target is one target of a rule.
type Target struct {
	// ID is the target's Id, unique within the rule.
	ID string `json:"Id"`
	// ARN is the target resource's ARN.
	ARN string `json:"Arn"`
	// RoleARN is the role EventBridge assumes to invoke the target ("" if none).
	RoleARN string `json:"RoleArn,omitempty"`
	// Input is a constant JSON text sent instead of the event ("" if not set).
	Input string `json:"Input,omitempty"`
	// InputPath is a JSONPath selecting the part of the event to send ("" if not set).
	InputPath string `json:"InputPath,omitempty"`
	// InputTransformer rewrites the event before sending; nil if not set.
	InputTransformer *InputTransformer `json:"InputTransformer,omitempty"`
	// RetryPolicy bounds retries of a failed delivery; nil means EventBridge's default
	// (185 attempts within 24 hours).
	RetryPolicy *RetryPolicy `json:"RetryPolicy,omitempty"`
	// DeadLetterConfig names the queue for undeliverable events; nil if none.
	DeadLetterConfig *DeadLetterConfig `json:"DeadLetterConfig,omitempty"`
}

// InputTransformer is a target's input transformer.
type InputTransformer struct {
	// InputPathsMap maps template variables to JSONPaths into the event.
	InputPathsMap map[string]string `json:"InputPathsMap,omitempty"`
	// InputTemplate is the text sent, with <variable> placeholders.
	InputTemplate string `json:"InputTemplate"`
}

// RetryPolicy is a target's retry policy. A nil field means EventBridge's default for it.
type RetryPolicy struct {
	// MaximumRetryAttempts is the number of retries after the first attempt.
	MaximumRetryAttempts *int `json:"MaximumRetryAttempts,omitempty"`
	// MaximumEventAgeInSeconds is how long an event may be retried.
	MaximumEventAgeInSeconds *int `json:"MaximumEventAgeInSeconds,omitempty"`
}

// DeadLetterConfig names a target's dead-letter queue.
type DeadLetterConfig struct {
	// ARN is the SQS queue's ARN.
	ARN string `json:"Arn"`
}

// Rule states.
const (
	RuleStateEnabled  = "ENABLED"
	RuleStateDisabled = "DISABLED"
)

// rule resolves an AWS::Events::Rule.
func (r *resolver) rule(id string, res rawResource) (Rule, error) {
	rl := Rule{LogicalID: id, CDKPath: res.cdkPath()}
	name, err := r.physicalName(id, res)
	if err != nil {
		return rl, err
	}
	attrs, _, err := r.attributes(id, res, name)
	if err != nil {
		return rl, err
	}
	rl.Name, rl.ARN = name, attrs["Arn"]
	bus, err := r.stringProperty(id, res, "EventBusName", defaultEventBus)
	if err != nil {
		return rl, err
	}
	rl.EventBusName = busNameFromARN(bus)
	if rl.ScheduleExpression, err = r.stringProperty(id, res, "ScheduleExpression", ""); err != nil {
		return rl, err
	}
	if rl.State, err = r.stringProperty(id, res, "State", RuleStateEnabled); err != nil {
		return rl, err
	}
	if rl.EventPattern, err = r.eventPattern(id, res); err != nil {
		return rl, err
	}
	if _, err := r.decodeProperty(id, res, "Targets", &rl.Targets); err != nil {
		return rl, err
	}
	return rl, nil
}

// eventPattern resolves EventPattern, decoding it when the template gives it as JSON text.
func (r *resolver) eventPattern(id string, res rawResource) (any, error) {
	v, present, err := r.property(id, res, "EventPattern")
	if err != nil || !present {
		return nil, err
	}
	text, isText := v.(string)
	if !isText {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	dec.UseNumber()
	var pattern any
	if err := dec.Decode(&pattern); err != nil {
		return nil, propertySite(id, "EventPattern").failf(ErrInvalidProperty, "EventPattern is not JSON: %v", err)
	}
	return pattern, nil
}
