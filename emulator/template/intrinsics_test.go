package template

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// intrinsicsFixture defines the names the intrinsic-function tests refer to.
const intrinsicsFixture = `{
 "Parameters": {
  "Subnets": {"Type": "CommaDelimitedList", "Default": "a, b,c"},
  "Size": {"Type": "Number", "Default": 3}
 },
 "Mappings": {"Limits": {"dev": {"Max": 5}}},
 "Conditions": {
  "InEurope": {"Fn::Equals": [{"Ref": "AWS::Region"}, "eu-west-1"]},
  "Small": {"Fn::Not": [{"Fn::Equals": [{"Ref": "Size"}, "10"]}]},
  "Both": {"Fn::And": [{"Condition": "Small"}, {"Fn::Or": [{"Condition": "InEurope"}, {"Fn::Equals": ["x", "x"]}]}]}
 },
 "Resources": {
  "Table": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "locks"}},
  "Queue": {"Type": "AWS::SQS::Queue"},
  "Fifo": {"Type": "AWS::SQS::Queue", "Properties": {"FifoQueue": true}},
  "Machine": {"Type": "AWS::StepFunctions::StateMachine"},
  "Role": {"Type": "AWS::IAM::Role", "Properties": {"Path": "/service/"}},
  "Bus": {"Type": "AWS::Events::EventBus", "Properties": {"Name": "orders"}},
  "BusRule": {"Type": "AWS::Events::Rule", "Properties": {"EventBusName": {"Ref": "Bus"}}},
  "Logs": {"Type": "AWS::Logs::LogGroup", "Properties": {"LogGroupName": "/aws/vendedlogs/states/x"}},
  "Topic": {"Type": "AWS::SNS::Topic"},
  "Permission": {"Type": "AWS::Lambda::Permission"},
  "AVeryLongLogicalIdentifierThatPushesTheDefaultFunctionNameOverSixtyFourCharacters": {"Type": "AWS::Lambda::Function"}
 }
}`

func newTestResolver(t *testing.T) *resolver {
	t.Helper()
	raw, err := parseRawTemplate([]byte(intrinsicsFixture))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{}.withDefaults("", "")
	return newResolver(raw, newStackContext("Stack", opts), nil)
}

// expr decodes a JSON expression the way templates are decoded.
func expr(t *testing.T, text string) any {
	t.Helper()
	raw, err := parseRawTemplate([]byte(`{"Resources": {}, "Mappings": {"x": ` + text + `}}`))
	if err != nil {
		t.Fatalf("bad expression %s: %v", text, err)
	}
	return raw.Mappings["x"]
}

func TestResolveIntrinsics(t *testing.T) {
	tests := []struct {
		name string
		expr string
		want any
	}{
		{"pseudo parameters", `{"Fn::Join": [":", [{"Ref": "AWS::Region"}, {"Ref": "AWS::AccountId"}, {"Ref": "AWS::Partition"}, {"Ref": "AWS::URLSuffix"}, {"Ref": "AWS::StackName"}]]}`,
			"us-east-1:000000000000:aws:amazonaws.com:Stack"},
		{"Sub string form", `{"Fn::Sub": "arn:${AWS::Partition}:states:${AWS::Region}:${AWS::AccountId}:stateMachine:x"}`,
			"arn:aws:states:us-east-1:000000000000:stateMachine:x"},
		{"Sub with variables", `{"Fn::Sub": ["${Greeting}, ${Name}!", {"Greeting": "Hello", "Name": {"Ref": "Table"}}]}`,
			"Hello, locks!"},
		{"Sub literal", `{"Fn::Sub": "${!Literal} and ${ AWS::Region }"}`, "${Literal} and us-east-1"},
		{"Sub resource attribute", `{"Fn::Sub": "${Machine.Name} ${Table.Arn}"}`,
			"Stack-Machine arn:aws:dynamodb:us-east-1:000000000000:table/locks"},
		{"GetAtt string form", `{"Fn::GetAtt": "Queue.QueueName"}`, "Stack-Queue"},
		{"Select of Split", `{"Fn::Select": ["1", {"Fn::Split": ["/", "a/b/c"]}]}`, "b"},
		{"Select of a list parameter", `{"Fn::Select": [2, {"Ref": "Subnets"}]}`, "c"},
		{"list parameter", `{"Ref": "Subnets"}`, []any{"a", "b", "c"}},
		{"numeric parameter", `{"Ref": "Size"}`, "3"},
		{"If true", `{"Fn::If": ["Both", "yes", "no"]}`, "yes"},
		{"If false", `{"Fn::If": ["InEurope", "yes", "no"]}`, "no"},
		{"NoValue drops a key", `{"a": 1, "b": {"Fn::If": ["InEurope", 2, {"Ref": "AWS::NoValue"}]}}`, map[string]any{"a": json.Number("1")}},
		{"NoValue drops a list element", `["a", {"Ref": "AWS::NoValue"}, "c"]`, []any{"a", "c"}},
		{"Base64", `{"Fn::Base64": {"Fn::Sub": "${AWS::Region}"}}`, "dXMtZWFzdC0x"},
		{"GetAZs", `{"Fn::GetAZs": ""}`, []any{"us-east-1a", "us-east-1b", "us-east-1c"}},
		{"FindInMap", `{"Fn::FindInMap": ["Limits", "dev", "Max"]}`, json.Number("5")},
		{"Join of numbers", `{"Fn::Join": ["-", [1, 2.5, true]]}`, "1-2.5-true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestResolver(t)
			got, err := r.resolve(site{logicalID: "Test"}, expr(t, tt.expr))
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestRefAndGetAttPerType(t *testing.T) {
	tests := []struct {
		id, attr string
		want     string
	}{
		{"Table", attrRef, "locks"},
		{"Table", "Arn", "arn:aws:dynamodb:us-east-1:000000000000:table/locks"},
		{"Table", "StreamArn", "arn:aws:dynamodb:us-east-1:000000000000:table/locks/stream/1970-01-01T00:00:00.000"},
		{"Queue", attrRef, "https://sqs.us-east-1.amazonaws.com/000000000000/Stack-Queue"},
		{"Queue", "Arn", "arn:aws:sqs:us-east-1:000000000000:Stack-Queue"},
		{"Fifo", "QueueName", "Stack-Fifo.fifo"},
		{"Machine", attrRef, "arn:aws:states:us-east-1:000000000000:stateMachine:Stack-Machine"},
		{"Machine", "Name", "Stack-Machine"},
		{"Role", attrRef, "Stack-Role"},
		{"Role", "Arn", "arn:aws:iam::000000000000:role/service/Stack-Role"},
		{"Bus", "Arn", "arn:aws:events:us-east-1:000000000000:event-bus/orders"},
		{"BusRule", attrRef, "Stack-BusRule"},
		{"BusRule", "Arn", "arn:aws:events:us-east-1:000000000000:rule/orders/Stack-BusRule"},
		{"Logs", "Arn", "arn:aws:logs:us-east-1:000000000000:log-group:/aws/vendedlogs/states/x:*"},
		{"Topic", attrRef, "arn:aws:sns:us-east-1:000000000000:Stack-Topic"},
		{"Permission", attrRef, "Stack-Permission"},
		{"Permission", "Arn", "arn:aws:lambda:us-east-1:000000000000:permission/Stack-Permission"},
		{"Permission", "Anything", "arn:aws:lambda:us-east-1:000000000000:permission/Stack-Permission/Anything"},
	}
	for _, tt := range tests {
		t.Run(tt.id+"."+tt.attr, func(t *testing.T) {
			r := newTestResolver(t)
			got, err := r.attribute(site{logicalID: "Test"}, tt.id, r.tpl.Resources[tt.id], tt.attr)
			if err != nil {
				t.Fatalf("attribute: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDefaultNamesRespectLengthLimits(t *testing.T) {
	r := newTestResolver(t)
	id := "AVeryLongLogicalIdentifierThatPushesTheDefaultFunctionNameOverSixtyFourCharacters"
	name, err := r.physicalName(id, r.tpl.Resources[id])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(name), kinds[TypeFunction].maxNameLen; got != want {
		t.Errorf("len(%q) = %d, want %d", name, got, want)
	}
	if !strings.HasPrefix(name, "Stack-AVeryLong") {
		t.Errorf("name %q lost its prefix", name)
	}
	if again := trimName("Stack-"+id, kinds[TypeFunction].maxNameLen); again != name {
		t.Errorf("trimmed name is not deterministic: %q then %q", name, again)
	}
}

func TestApplySubstitutions(t *testing.T) {
	subs := map[string]string{"A": "x", "B": "${A}"}
	tests := []struct{ in, want string }{
		{"${A}-${B}", "x-${A}"},
		{"${C} ${A}", "${C} x"},
		{"no placeholders", "no placeholders"},
		{"unclosed ${A", "unclosed ${A"},
	}
	for _, tt := range tests {
		if got := applySubstitutions(tt.in, subs); got != tt.want {
			t.Errorf("applySubstitutions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
