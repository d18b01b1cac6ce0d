package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Placeholders that stand for the deployment's pseudo parameters.
const (
	placeholderPartition = "aws"
	placeholderRegion    = "us-east-1"
	placeholderAccount   = "123456789012"
	placeholderURLSuffix = "amazonaws.com"
)

// ErrUnsupportedIntrinsic is returned for a CloudFormation function the resolver does not know.
var ErrUnsupportedIntrinsic = errors.New("unsupported CloudFormation intrinsic")

// resolver turns CloudFormation values into strings, standing placeholders in for the values
// that are only known at deployment.
type resolver struct {
	// types maps each logical ID of the template to its resource type.
	types map[string]string
	// parameterDefaults maps template parameters to their default values.
	parameterDefaults map[string]string
}

// newResolver reads the resource types and parameter defaults of a template.
func newResolver(tmpl template) resolver {
	r := resolver{types: map[string]string{}, parameterDefaults: map[string]string{}}
	for id, resource := range tmpl.Resources {
		r.types[id] = resource.Type
	}
	for name, parameter := range tmpl.Parameters {
		if value, ok := parameter["Default"].(string); ok {
			r.parameterDefaults[name] = value
		}
	}
	return r
}

// resolve returns the string value of v: a string, or an object holding one intrinsic function.
func (r resolver) resolve(v any) (string, error) {
	switch value := v.(type) {
	case string:
		return value, nil
	case map[string]any:
		if len(value) != 1 {
			return "", fmt.Errorf("%w: an object with %d keys", ErrUnsupportedIntrinsic, len(value))
		}
		for name, argument := range value {
			switch name {
			case "Ref":
				return r.ref(argument)
			case "Fn::GetAtt":
				return r.getAtt(argument)
			case "Fn::Join":
				return r.join(argument)
			default:
				return "", fmt.Errorf("%w: %s", ErrUnsupportedIntrinsic, name)
			}
		}
	}
	return "", fmt.Errorf("%w: value of type %T", ErrUnsupportedIntrinsic, v)
}

func (r resolver) join(argument any) (string, error) {
	args, ok := argument.([]any)
	if !ok || len(args) != 2 {
		return "", fmt.Errorf("%w: Fn::Join needs [delimiter, [values]], got %v", ErrUnsupportedIntrinsic, argument)
	}
	delimiter, ok := args[0].(string)
	parts, partsOK := args[1].([]any)
	if !ok || !partsOK {
		return "", fmt.Errorf("%w: Fn::Join needs [delimiter, [values]], got %v", ErrUnsupportedIntrinsic, argument)
	}
	resolved := make([]string, len(parts))
	for i, part := range parts {
		s, err := r.resolve(part)
		if err != nil {
			return "", err
		}
		resolved[i] = s
	}
	return strings.Join(resolved, delimiter), nil
}

func (r resolver) ref(argument any) (string, error) {
	name, ok := argument.(string)
	if !ok {
		return "", fmt.Errorf("%w: Ref to %v", ErrUnsupportedIntrinsic, argument)
	}
	switch name {
	case "AWS::Partition":
		return placeholderPartition, nil
	case "AWS::Region":
		return placeholderRegion, nil
	case "AWS::AccountId":
		return placeholderAccount, nil
	case "AWS::URLSuffix":
		return placeholderURLSuffix, nil
	case "AWS::StackName":
		return "Stack", nil
	}
	if value, ok := r.parameterDefaults[name]; ok {
		return value, nil
	}
	resourceType, ok := r.types[name]
	if !ok {
		return "", fmt.Errorf("%w: Ref to %q, which is neither a resource nor a parameter with a default", ErrUnsupportedIntrinsic, name)
	}
	switch resourceType {
	case "AWS::StepFunctions::StateMachine", "AWS::SNS::Topic", "AWS::StepFunctions::Activity":
		return arn(resourceType, name), nil
	case "AWS::SQS::Queue":
		return fmt.Sprintf("https://sqs.%s.%s/%s/%s", placeholderRegion, placeholderURLSuffix, placeholderAccount, name), nil
	default:
		return name, nil
	}
}

func (r resolver) getAtt(argument any) (string, error) {
	var id, attribute string
	switch value := argument.(type) {
	case []any:
		if len(value) == 2 {
			id, _ = value[0].(string)
			attribute, _ = value[1].(string)
		}
	case string:
		id, attribute, _ = strings.Cut(value, ".")
	}
	resourceType, ok := r.types[id]
	if !ok || attribute == "" {
		return "", fmt.Errorf("%w: Fn::GetAtt %v of no resource of the template", ErrUnsupportedIntrinsic, argument)
	}
	if attribute == "Arn" {
		return arn(resourceType, id), nil
	}
	return id + "." + attribute, nil
}

// arnFormats gives the resource part of the ARN of each well-known type; %s is the name.
var arnFormats = map[string]struct{ service, resource string }{
	"AWS::Lambda::Function":            {"lambda", "function:%s"},
	"AWS::DynamoDB::Table":             {"dynamodb", "table/%s"},
	"AWS::StepFunctions::StateMachine": {"states", "stateMachine:%s"},
	"AWS::StepFunctions::Activity":     {"states", "activity:%s"},
	"AWS::SQS::Queue":                  {"sqs", "%s"},
	"AWS::SNS::Topic":                  {"sns", "%s"},
	"AWS::Events::EventBus":            {"events", "event-bus/%s"},
	"AWS::Logs::LogGroup":              {"logs", "log-group:%s:*"},
}

// arn returns a placeholder ARN for the resource id of type resourceType.
func arn(resourceType, id string) string {
	if resourceType == "AWS::IAM::Role" {
		return fmt.Sprintf("arn:%s:iam::%s:role/%s", placeholderPartition, placeholderAccount, id)
	}
	format, ok := arnFormats[resourceType]
	if !ok {
		parts := strings.Split(resourceType, "::")
		format.service = strings.ToLower(parts[min(1, len(parts)-1)])
		format.resource = strings.ToLower(parts[len(parts)-1]) + "/%s"
	}
	return fmt.Sprintf("arn:%s:%s:%s:%s:%s", placeholderPartition, format.service, placeholderRegion,
		placeholderAccount, fmt.Sprintf(format.resource, id))
}

// substitute replaces each ${name} of definition by its resolved substitution.
func (r resolver) substitute(definition string, substitutions map[string]any) (string, error) {
	names := make([]string, 0, len(substitutions))
	for name := range substitutions {
		names = append(names, name)
	}
	sort.Strings(names)
	pairs := make([]string, 0, 2*len(names))
	for _, name := range names {
		value, err := r.resolve(substitutions[name])
		if err != nil {
			return "", fmt.Errorf("DefinitionSubstitutions %s: %w", name, err)
		}
		pairs = append(pairs, "${"+name+"}", value)
	}
	return strings.NewReplacer(pairs...).Replace(definition), nil
}
