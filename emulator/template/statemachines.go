package template

import (
	"bytes"
	"encoding/json"
	"strings"
)

// StateMachine is an AWS::StepFunctions::StateMachine with its definition resolved: intrinsic
// functions evaluated and DefinitionSubstitutions applied, ready for asl.Parse.
type StateMachine struct {
	// LogicalID is the resource's logical ID in the template.
	LogicalID string
	// CDKPath is the construct path CDK recorded in the aws:cdk:path metadata ("" if none).
	CDKPath string
	// Name is the physical state machine name (StateMachineName, or the emulator's
	// deterministic name).
	Name string
	// ARN is the state machine's ARN.
	ARN string
	// Type is STANDARD (the default) or EXPRESS.
	Type string
	// Definition is the ASL document. A DefinitionString is kept byte for byte once resolved;
	// a Definition object is encoded with its keys sorted.
	Definition string
	// RoleARN is the execution role's ARN.
	RoleARN string
	// Logging is the logging configuration; nil when not set.
	Logging *Logging
	// TracingEnabled reports whether X-Ray tracing is on.
	TracingEnabled bool
	// DependsOn lists the logical IDs of the DependsOn attribute, in template order.
	DependsOn []string
}

// Logging is a state machine's logging configuration.
type Logging struct {
	// Level is ALL, ERROR, FATAL or OFF.
	Level string
	// IncludeExecutionData reports whether input and output are logged.
	IncludeExecutionData bool
	// LogGroupARNs are the destination log groups' ARNs.
	LogGroupARNs []string
}

// State machine types.
const (
	StateMachineTypeStandard = "STANDARD"
	StateMachineTypeExpress  = "EXPRESS"
)

// Properties that hold a state machine's definition.
const (
	propDefinitionString     = "DefinitionString"
	propDefinition           = "Definition"
	propDefinitionS3Location = "DefinitionS3Location"
)

// stateMachine resolves an AWS::StepFunctions::StateMachine.
func (r *resolver) stateMachine(id string, res rawResource) (StateMachine, error) {
	m := StateMachine{LogicalID: id, CDKPath: res.cdkPath(), DependsOn: res.dependsOn()}
	name, err := r.physicalName(id, res)
	if err != nil {
		return m, err
	}
	attrs, _, err := r.attributes(id, res, name)
	if err != nil {
		return m, err
	}
	m.Name, m.ARN = name, attrs["Arn"]
	if m.Type, err = r.stringProperty(id, res, "StateMachineType", StateMachineTypeStandard); err != nil {
		return m, err
	}
	if m.RoleARN, err = r.stringProperty(id, res, "RoleArn", ""); err != nil {
		return m, err
	}
	if m.Definition, err = r.definition(id, res); err != nil {
		return m, err
	}
	if m.Logging, err = r.logging(id, res); err != nil {
		return m, err
	}
	var tracing struct {
		Enabled bool `json:"Enabled"`
	}
	if _, err := r.decodeProperty(id, res, "TracingConfiguration", &tracing); err != nil {
		return m, err
	}
	m.TracingEnabled = tracing.Enabled
	return m, nil
}

// definition resolves the state machine's definition and applies DefinitionSubstitutions.
func (r *resolver) definition(id string, res rawResource) (string, error) {
	var sources []string
	for _, p := range []string{propDefinitionString, propDefinition, propDefinitionS3Location} {
		if _, ok := res.Properties[p]; ok {
			sources = append(sources, p)
		}
	}
	s := site{id, "Properties"}
	if len(sources) != 1 {
		return "", s.failf(ErrInvalidProperty, "a state machine needs exactly one of %s, %s and %s, found %d",
			propDefinitionString, propDefinition, propDefinitionS3Location, len(sources))
	}
	var text string
	switch sources[0] {
	case propDefinitionS3Location:
		return "", s.key(propDefinitionS3Location).failf(ErrNotSupported, "a definition stored in S3 cannot be read locally; use DefinitionString or Definition")
	case propDefinitionString:
		v, _, err := r.property(id, res, propDefinitionString)
		if err != nil {
			return "", err
		}
		var ok bool
		if text, ok = v.(string); !ok {
			return "", s.key(propDefinitionString).failf(ErrInvalidProperty, "DefinitionString must resolve to a string")
		}
	case propDefinition:
		v, _, err := r.property(id, res, propDefinition)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return "", s.key(propDefinition).failf(ErrInvalidProperty, "Definition: %v", err)
		}
		text = strings.TrimSuffix(buf.String(), "\n")
	}
	substitutions, err := r.substitutions(id, res)
	if err != nil {
		return "", err
	}
	return applySubstitutions(text, substitutions), nil
}

// substitutions resolves DefinitionSubstitutions to strings.
func (r *resolver) substitutions(id string, res rawResource) (map[string]string, error) {
	v, present, err := r.property(id, res, "DefinitionSubstitutions")
	if err != nil || !present {
		return nil, err
	}
	s := propertySite(id, "DefinitionSubstitutions")
	m, ok := v.(map[string]any)
	if !ok {
		return nil, s.failf(ErrInvalidProperty, "DefinitionSubstitutions must be an object")
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		if out[k], ok = scalarString(m[k]); !ok {
			return nil, s.key(k).failf(ErrInvalidProperty, "a substitution must be a string, number or boolean")
		}
	}
	return out, nil
}

// applySubstitutions replaces every ${key} whose key is in subs, in one pass (a replaced value
// is never scanned again); other ${...} are left as they are.
func applySubstitutions(text string, subs map[string]string) string {
	if len(subs) == 0 {
		return text
	}
	var b strings.Builder
	for {
		start := strings.Index(text, "${")
		if start < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := strings.IndexByte(text[start:], '}')
		if end < 0 {
			b.WriteString(text)
			return b.String()
		}
		key := text[start+2 : start+end]
		if value, ok := subs[key]; ok {
			b.WriteString(text[:start])
			b.WriteString(value)
		} else {
			b.WriteString(text[:start+end+1])
		}
		text = text[start+end+1:]
	}
}

// logging resolves LoggingConfiguration.
func (r *resolver) logging(id string, res rawResource) (*Logging, error) {
	var cfg struct {
		Level                string `json:"Level"`
		IncludeExecutionData bool   `json:"IncludeExecutionData"`
		Destinations         []struct {
			CloudWatchLogsLogGroup struct {
				LogGroupArn string `json:"LogGroupArn"`
			} `json:"CloudWatchLogsLogGroup"`
		} `json:"Destinations"`
	}
	present, err := r.decodeProperty(id, res, "LoggingConfiguration", &cfg)
	if err != nil || !present {
		return nil, err
	}
	l := &Logging{Level: cfg.Level, IncludeExecutionData: cfg.IncludeExecutionData}
	for _, d := range cfg.Destinations {
		l.LogGroupARNs = append(l.LogGroupARNs, d.CloudWatchLogsLogGroup.LogGroupArn)
	}
	return l, nil
}
