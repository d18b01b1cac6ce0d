package template

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// CloudFormation resource types the loader models.
const (
	TypeTable         = "AWS::DynamoDB::Table"
	TypeFunction      = "AWS::Lambda::Function"
	TypeStateMachine  = "AWS::StepFunctions::StateMachine"
	TypeQueue         = "AWS::SQS::Queue"
	TypeRule          = "AWS::Events::Rule"
	TypeEventBus      = "AWS::Events::EventBus"
	TypeRole          = "AWS::IAM::Role"
	TypeManagedPolicy = "AWS::IAM::ManagedPolicy"
	TypeLogGroup      = "AWS::Logs::LogGroup"
	TypeAlarm         = "AWS::CloudWatch::Alarm"
	TypeTopic         = "AWS::SNS::Topic"
)

// attrRef names the value Ref returns in an attribute set.
const attrRef = "Ref"

// kind is what the loader knows about naming a resource type: the property holding an
// explicit physical name and AWS's length limit for that name.
type kind struct {
	nameProperty string
	maxNameLen   int
}

var kinds = map[string]kind{
	TypeTable:         {nameProperty: "TableName", maxNameLen: 255},
	TypeFunction:      {nameProperty: "FunctionName", maxNameLen: 64},
	TypeStateMachine:  {nameProperty: "StateMachineName", maxNameLen: 80},
	TypeQueue:         {nameProperty: "QueueName", maxNameLen: 80},
	TypeRule:          {nameProperty: "Name", maxNameLen: 64},
	TypeEventBus:      {nameProperty: "Name", maxNameLen: 256},
	TypeRole:          {nameProperty: "RoleName", maxNameLen: 64},
	TypeManagedPolicy: {nameProperty: "ManagedPolicyName", maxNameLen: 128},
	TypeLogGroup:      {nameProperty: "LogGroupName", maxNameLen: 512},
	TypeAlarm:         {nameProperty: "AlarmName", maxNameLen: 255},
	TypeTopic:         {nameProperty: "TopicName", maxNameLen: 256},
}

// fifoSuffix ends the name of every FIFO queue.
const fifoSuffix = ".fifo"

// defaultNameLimit bounds generated names of types the loader does not model.
const defaultNameLimit = 128

// physicalName returns the resource's physical name: its explicit name property if set, else
// "<StackName>-<LogicalId>" trimmed to the type's length limit.
func (r *resolver) physicalName(id string, res rawResource) (string, error) {
	if name, done := r.names[id]; done {
		return name, nil
	}
	if r.naming[id] {
		return "", site{id, "Properties"}.failf(ErrCircularReference, "the physical name of %s depends on itself", id)
	}
	r.naming[id] = true
	defer delete(r.naming, id)

	k, known := kinds[res.Type]
	if !known {
		k.maxNameLen = defaultNameLimit
	}
	if k.nameProperty != "" {
		v, present, err := r.property(id, res, k.nameProperty)
		if err != nil {
			return "", err
		}
		if present {
			name, ok := v.(string)
			if !ok || name == "" {
				return "", propertySite(id, k.nameProperty).failf(ErrInvalidProperty, "%s must be a non-empty string", k.nameProperty)
			}
			r.names[id] = name
			return name, nil
		}
	}
	name := r.stack.name + "-" + id
	if res.Type == TypeQueue {
		fifo, err := r.boolProperty(id, res, "FifoQueue", false)
		if err != nil {
			return "", err
		}
		if fifo {
			name = trimName(name, k.maxNameLen-len(fifoSuffix)) + fifoSuffix
		}
	}
	name = trimName(name, k.maxNameLen)
	r.names[id] = name
	return name, nil
}

// trimName shortens name to at most limit bytes, replacing the tail with a hash of the whole
// name so that trimmed names stay distinct and deterministic.
func trimName(name string, limit int) string {
	if len(name) <= limit {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	suffix := fmt.Sprintf("-%08x", h.Sum32())
	return name[:limit-len(suffix)] + suffix
}

// attribute returns one attribute (or attrRef for Ref) of a resource.
func (r *resolver) attribute(s site, id string, res rawResource, attr string) (any, error) {
	name, err := r.physicalName(id, res)
	if err != nil {
		return nil, err
	}
	attrs, known, err := r.attributes(id, res, name)
	if err != nil {
		return nil, err
	}
	if v, ok := attrs[attr]; ok {
		return v, nil
	}
	if !known {
		return attrs["Arn"] + "/" + attr, nil
	}
	return nil, s.failf(ErrUnsupportedAttribute, "%s has no attribute %q in the emulator", res.Type, attr)
}

// attributes computes the Ref value and the Fn::GetAtt attributes of a resource, following
// each type's CloudFormation documentation. known is false for types the loader does not
// model; those get a deterministic placeholder ARN.
func (r *resolver) attributes(id string, res rawResource, name string) (attrs map[string]string, known bool, err error) {
	s := r.stack
	switch res.Type {
	case TypeTable:
		arn := s.arn("dynamodb", "table/"+name)
		return map[string]string{attrRef: name, "Arn": arn, "StreamArn": arn + streamSuffix}, true, nil
	case TypeFunction:
		return map[string]string{attrRef: name, "Arn": s.arn("lambda", "function:"+name)}, true, nil
	case TypeStateMachine:
		arn := s.arn("states", "stateMachine:"+name)
		return map[string]string{attrRef: arn, "Arn": arn, "Name": name}, true, nil
	case TypeQueue:
		url := fmt.Sprintf("https://sqs.%s.%s/%s/%s", s.region, s.urlSuffix, s.account, name)
		return map[string]string{attrRef: url, "Arn": s.arn("sqs", name), "QueueName": name, "QueueUrl": url}, true, nil
	case TypeRule:
		bus, err := r.stringProperty(id, res, "EventBusName", defaultEventBus)
		if err != nil {
			return nil, false, err
		}
		resource := "rule/" + name
		if busName := busNameFromARN(bus); busName != defaultEventBus {
			resource = "rule/" + busName + "/" + name
		}
		return map[string]string{attrRef: name, "Arn": s.arn("events", resource)}, true, nil
	case TypeEventBus:
		return map[string]string{attrRef: name, "Name": name, "Arn": s.arn("events", "event-bus/"+name)}, true, nil
	case TypeRole:
		path, err := r.stringProperty(id, res, "Path", "/")
		if err != nil {
			return nil, false, err
		}
		arn := s.globalARN("iam", "role"+path+name)
		return map[string]string{attrRef: name, "Arn": arn, "RoleId": "AROA" + strings.ToUpper(deterministicUUID(arn)[:16])}, true, nil
	case TypeManagedPolicy:
		arn := s.globalARN("iam", "policy/"+name)
		return map[string]string{attrRef: arn, "PolicyArn": arn}, true, nil
	case TypeLogGroup:
		return map[string]string{attrRef: name, "Arn": s.arn("logs", "log-group:"+name+":*")}, true, nil
	case TypeAlarm:
		return map[string]string{attrRef: name, "Arn": s.arn("cloudwatch", "alarm:"+name)}, true, nil
	case TypeTopic:
		arn := s.arn("sns", name)
		return map[string]string{attrRef: arn, "TopicArn": arn, "TopicName": name}, true, nil
	}
	return map[string]string{attrRef: name, "Arn": placeholderARN(s, res.Type, name)}, false, nil
}

// streamSuffix makes a table's StreamArn from its ARN; the label is fixed so it is deterministic.
const streamSuffix = "/stream/1970-01-01T00:00:00.000"

// defaultEventBus is the name of the account's default event bus.
const defaultEventBus = "default"

// busNameFromARN accepts an event bus name or ARN and returns the name.
func busNameFromARN(bus string) string {
	if _, name, ok := strings.Cut(bus, ":event-bus/"); ok {
		return name
	}
	return bus
}

// placeholderARN gives a resource type the loader does not model an ARN of the shape
// arn:<partition>:<service>:<region>:<account>:<type>/<name>, e.g. AWS::Lambda::Permission →
// arn:aws:lambda:us-east-1:000000000000:permission/Stack-Perm.
func placeholderARN(s stackContext, typ, name string) string {
	parts := strings.Split(typ, "::")
	service, resource := "cloudformation", "resource"
	if len(parts) == 3 {
		service, resource = strings.ToLower(parts[1]), strings.ToLower(parts[2])
	}
	return s.arn(service, resource+"/"+name)
}
