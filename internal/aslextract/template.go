package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
)

// stateMachineType is the CloudFormation type of a Step Functions state machine.
const stateMachineType = "AWS::StepFunctions::StateMachine"

// ErrNoDefinition is returned for a state machine whose definition is not in the template
// (DefinitionS3Location) or is missing.
var ErrNoDefinition = errors.New("no definition in the template")

// template is the part of a CloudFormation template that the extraction reads.
type template struct {
	Parameters map[string]map[string]any `json:"Parameters"`
	Resources  map[string]resource       `json:"Resources"`
}

// resource is one resource of a template.
type resource struct {
	Type       string          `json:"Type"`
	Properties json.RawMessage `json:"Properties"`
}

// stateMachineProperties are the properties of a state machine that hold its definition.
type stateMachineProperties struct {
	DefinitionString        any             `json:"DefinitionString"`
	Definition              json.RawMessage `json:"Definition"`
	DefinitionSubstitutions map[string]any  `json:"DefinitionSubstitutions"`
}

// machine is the definition of one state machine.
type machine struct {
	LogicalID string
	ASL       []byte // indented JSON
}

// readTemplate parses the template file at path.
func readTemplate(path string) (template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return template{}, err
	}
	var tmpl template
	if err := json.Unmarshal(raw, &tmpl); err != nil {
		return template{}, fmt.Errorf("%s: %w", path, err)
	}
	return tmpl, nil
}

// machines returns the state machines of tmpl, sorted by logical ID.
func (tmpl template) machines() ([]machine, error) {
	r := newResolver(tmpl)
	ids := make([]string, 0, len(tmpl.Resources))
	for id, res := range tmpl.Resources {
		if res.Type == stateMachineType {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	machines := make([]machine, 0, len(ids))
	for _, id := range ids {
		asl, err := r.definition(tmpl.Resources[id].Properties)
		if err != nil {
			return nil, fmt.Errorf("state machine %s: %w", id, err)
		}
		machines = append(machines, machine{LogicalID: id, ASL: asl})
	}
	return machines, nil
}

// definition returns the indented ASL of a state machine's properties.
func (r resolver) definition(properties json.RawMessage) ([]byte, error) {
	var props stateMachineProperties
	if len(properties) > 0 {
		if err := json.Unmarshal(properties, &props); err != nil {
			return nil, err
		}
	}
	var definition string
	switch {
	case props.DefinitionString != nil:
		s, err := r.resolve(props.DefinitionString)
		if err != nil {
			return nil, fmt.Errorf("DefinitionString: %w", err)
		}
		definition = s
	case len(props.Definition) > 0:
		definition = string(props.Definition)
	default:
		return nil, ErrNoDefinition
	}
	definition, err := r.substitute(definition, props.DefinitionSubstitutions)
	if err != nil {
		return nil, err
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(definition), "", "  "); err != nil {
		return nil, fmt.Errorf("the resolved definition is not JSON: %w", err)
	}
	indented.WriteByte('\n')
	return indented.Bytes(), nil
}
