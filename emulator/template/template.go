package template

import "strings"

// Template is one stack resolved into the local resources the emulator wires up. Every list
// is ordered by logical ID. Resources excluded by a false Condition are left out.
type Template struct {
	// StackName is the value of AWS::StackName.
	StackName string
	// StackID is the value of AWS::StackId (deterministic).
	StackID string
	// Region is the value of AWS::Region.
	Region string
	// Account is the value of AWS::AccountId.
	Account string
	// Partition is the value of AWS::Partition.
	Partition string
	// Tables are the DynamoDB tables.
	Tables []Table
	// Functions are the Lambda functions.
	Functions []Function
	// StateMachines are the Step Functions state machines.
	StateMachines []StateMachine
	// Rules are the EventBridge rules.
	Rules []Rule
	// Queues are the SQS queues.
	Queues []Queue
	// Alarms are the CloudWatch alarms.
	Alarms []Alarm
}

// build resolves every modelled resource of a raw template.
func build(raw *rawTemplate, stack stackContext, params map[string]string) (*Template, error) {
	r := newResolver(raw, stack, params)
	t := &Template{
		StackName: stack.name,
		StackID:   stack.id,
		Region:    stack.region,
		Account:   stack.account,
		Partition: stack.partition,
	}
	for _, id := range sortedKeys(raw.Resources) {
		res, included, err := r.resourceIncluded(site{logicalID: id}, id)
		if err != nil {
			return nil, err
		}
		if !included {
			continue
		}
		if err := t.add(r, id, res); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// add resolves one resource into its typed list; types the emulator does not run are skipped.
func (t *Template) add(r *resolver, id string, res rawResource) error {
	switch res.Type {
	case TypeTable:
		v, err := r.table(id, res)
		t.Tables = append(t.Tables, v)
		return err
	case TypeFunction:
		v, err := r.function(id, res)
		t.Functions = append(t.Functions, v)
		return err
	case TypeStateMachine:
		v, err := r.stateMachine(id, res)
		t.StateMachines = append(t.StateMachines, v)
		return err
	case TypeRule:
		v, err := r.rule(id, res)
		t.Rules = append(t.Rules, v)
		return err
	case TypeQueue:
		v, err := r.queue(id, res)
		t.Queues = append(t.Queues, v)
		return err
	case TypeAlarm:
		v, err := r.alarm(id, res)
		t.Alarms = append(t.Alarms, v)
		return err
	}
	return nil
}

// TableByName returns the table with the given physical name.
func (t *Template) TableByName(name string) (*Table, bool) {
	for i := range t.Tables {
		if t.Tables[i].Name == name {
			return &t.Tables[i], true
		}
	}
	return nil, false
}

// Function finds a function the way Lambda's FunctionName parameter does: by name, by ARN, or
// by ARN with a version or alias qualifier (which is ignored).
func (t *Template) Function(nameOrARN string) (*Function, bool) {
	want := unqualifiedFunction(nameOrARN)
	for i := range t.Functions {
		if f := &t.Functions[i]; f.Name == want || f.ARN == want {
			return f, true
		}
	}
	return nil, false
}

// unqualifiedFunction strips a version or alias qualifier from a function ARN
// (arn:aws:lambda:region:account:function:name:qualifier).
func unqualifiedFunction(nameOrARN string) string {
	const unqualifiedParts = 7
	parts := strings.Split(nameOrARN, ":")
	if len(parts) > unqualifiedParts && parts[0] == "arn" {
		return strings.Join(parts[:unqualifiedParts], ":")
	}
	return nameOrARN
}

// StateMachineByARN returns the state machine with the given ARN.
func (t *Template) StateMachineByARN(arn string) (*StateMachine, bool) {
	for i := range t.StateMachines {
		if t.StateMachines[i].ARN == arn {
			return &t.StateMachines[i], true
		}
	}
	return nil, false
}

// QueueByARN returns the queue with the given ARN.
func (t *Template) QueueByARN(arn string) (*Queue, bool) {
	for i := range t.Queues {
		if t.Queues[i].ARN == arn {
			return &t.Queues[i], true
		}
	}
	return nil, false
}
