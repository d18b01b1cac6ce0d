package eventbus_test

import (
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
)

// ec2Event is the example event of the EventBridge content-filtering documentation (and of
// Event Ruler's README).
const ec2Event = `{
  "version": "0",
  "id": "ddddd4-aaaa-7777-4444-345dd43cc333",
  "detail-type": "EC2 Instance State-change Notification",
  "source": "aws.ec2",
  "account": "012345679012",
  "time": "2017-10-02T16:24:49Z",
  "region": "us-east-1",
  "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000"],
  "detail": {
    "c-count": 5,
    "d-count": 3,
    "x-limit": 301.8,
    "source-ip": "10.0.0.33",
    "instance-id": "i-000000aaaaaa00000",
    "state": "running"
  }
}`

// nullEvent is the example event of "Matching null values and empty strings".
const nullEvent = `{
  "version": "0",
  "id": "3e3c153a-8339-4e30-8c35-687ebef853fe",
  "detail-type": "EC2 Instance Launch Successful",
  "source": "aws.autoscaling",
  "account": "123456789012",
  "time": "2015-11-11T21:31:47Z",
  "region": "us-east-1",
  "resources": [],
  "detail": {"eventVersion": "", "responseElements": null}
}`

// statusChangeEvent is the "Execution failed" example of the Step Functions documentation.
const statusChangeEvent = `{
  "version": "0",
  "id": "315c1398-40ff-a850-213b-158f73e60175",
  "detail-type": "Step Functions Execution Status Change",
  "source": "aws.states",
  "account": "012345678912",
  "time": "2019-02-26T19:42:21Z",
  "region": "us-east-1",
  "resources": ["arn:aws:states:us-east-1:012345678912:execution:state-machine-name:execution-name"],
  "detail": {
    "executionArn": "arn:aws:states:us-east-1:012345678912:execution:state-machine-name:execution-name",
    "stateMachineArn": "arn:aws:states:us-east-1:012345678912:stateMachine:state-machine",
    "name": "execution-name",
    "status": "FAILED",
    "startDate": 1551225146847,
    "stopDate": 1551225151881,
    "input": "{}",
    "inputDetails": {"included": true},
    "output": null,
    "outputDetails": null
  }
}`

func TestPatternMatchesDocumentationExamples(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		event   string
		want    bool
	}{
		{"simple matching", `{"detail-type": ["EC2 Instance State-change Notification"], "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000"], "detail": {"state": ["initializing", "running"]}}`, ec2Event, true},
		{"value not in the list", `{"detail": {"state": ["initializing", "stopped"]}}`, ec2Event, false},
		{"prefix", `{"time": [{"prefix": "2017-10-02"}]}`, ec2Event, true},
		{"prefix miss", `{"time": [{"prefix": "2017-10-03"}]}`, ec2Event, false},
		{"suffix", `{"source": [{"suffix": "ec2"}]}`, ec2Event, true},
		{"equals-ignore-case", `{"source": [{"equals-ignore-case": "AWS.EC2"}]}`, ec2Event, true},
		{"prefix ignoring case", `{"detail-type": [{"prefix": {"equals-ignore-case": "ec2 INSTANCE"}}]}`, ec2Event, true},
		{"suffix ignoring case", `{"detail-type": [{"suffix": {"equals-ignore-case": "NOTIFICATION"}}]}`, ec2Event, true},
		{"wildcard", `{"detail-type": [{"wildcard": "EC2*State-change*"}]}`, ec2Event, true},
		{"wildcard miss", `{"source": [{"wildcard": "aws.*s3"}]}`, ec2Event, false},
		{"anything-but string", `{"detail": {"state": [{"anything-but": "initializing"}]}}`, ec2Event, true},
		{"anything-but string excluded", `{"detail": {"state": [{"anything-but": "running"}]}}`, ec2Event, false},
		{"anything-but number", `{"detail": {"x-limit": [{"anything-but": 123}]}}`, ec2Event, true},
		{"anything-but string list", `{"detail": {"state": [{"anything-but": ["stopped", "overloaded"]}]}}`, ec2Event, true},
		{"anything-but number list excluded", `{"detail": {"c-count": [{"anything-but": [4, 5, 6]}]}}`, ec2Event, false},
		{"anything-but prefix", `{"detail": {"state": [{"anything-but": {"prefix": "init"}}]}}`, ec2Event, true},
		{"anything-but prefix excluded", `{"detail": {"state": [{"anything-but": {"prefix": "run"}}]}}`, ec2Event, false},
		{"anything-but suffix", `{"detail": {"instance-id": [{"anything-but": {"suffix": "000"}}]}}`, ec2Event, false},
		{"anything-but equals-ignore-case list", `{"detail": {"state": [{"anything-but": {"equals-ignore-case": ["STOPPED", "RUNNING"]}}]}}`, ec2Event, false},
		{"anything-but wildcard", `{"detail": {"state": [{"anything-but": {"wildcard": "*ing"}}]}}`, ec2Event, false},
		{"anything-but does not match an absent field", `{"detail": {"missing": [{"anything-but": "x"}]}}`, ec2Event, false},
		{"numeric ranges", `{"detail": {"c-count": [{"numeric": [">", 0, "<=", 5]}], "d-count": [{"numeric": ["<", 10]}], "x-limit": [{"numeric": ["=", 3.018e2]}]}}`, ec2Event, true},
		{"numeric open bound", `{"detail": {"c-count": [{"numeric": [">", 0, "<", 5]}]}}`, ec2Event, false},
		{"numeric on a string", `{"detail": {"state": [{"numeric": [">", 0]}]}}`, ec2Event, false},
		{"cidr", `{"detail": {"source-ip": [{"cidr": "10.0.0.0/24"}]}}`, ec2Event, true},
		{"cidr miss", `{"detail": {"source-ip": [{"cidr": "10.0.1.0/24"}]}}`, ec2Event, false},
		{"exists true", `{"detail": {"c-count": [{"exists": true}]}}`, ec2Event, true},
		{"exists false on a present field", `{"detail": {"c-count": [{"exists": false}]}}`, ec2Event, false},
		{"exists false on an absent field", `{"detail": {"e-count": [{"exists": false}]}}`, ec2Event, true},
		{"exists false on a non-leaf", `{"detail": {"c-count": [{"exists": false}]}}`, `{"detail": {"state": "x", "c-count": {"c1": 100}}}`, true},
		{"exists true on a non-leaf", `{"detail": {"c-count": [{"exists": true}]}}`, `{"detail": {"c-count": {"c1": 100}}}`, false},
		{"exists false with the parent absent", `{"detail": {"c-count": [{"exists": false}]}}`, `{"source": "x"}`, true},
		{"complex example", `{"time": [{"prefix": "2017-10-02"}], "detail": {"state": [{"anything-but": "initializing"}], "c-count": [{"numeric": [">", 0, "<=", 5]}], "d-count": [{"numeric": ["<", 10]}], "x-limit": [{"anything-but": [100, 200, 300]}], "source-ip": [{"cidr": "10.0.0.0/8"}]}}`, ec2Event, true},
		{"empty string", `{"detail": {"eventVersion": [""]}}`, nullEvent, true},
		{"null", `{"detail": {"responseElements": [null]}}`, nullEvent, true},
		{"empty string does not match null", `{"detail": {"responseElements": [""]}}`, nullEvent, false},
		{"null does not match empty string", `{"detail": {"eventVersion": [null]}}`, nullEvent, false},
		{"exists true on null", `{"detail": {"responseElements": [{"exists": true}]}}`, nullEvent, true},
		{"empty event array is absent", `{"resources": [{"exists": false}]}`, nullEvent, true},
		{"array intersection", `{"resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f", "arn:aws:ec2:us-east-1:111122223333:instance/i-b188560f"]}`,
			`{"resources": ["arn:aws:autoscaling:us-east-1:123456789012:autoScalingGroup:eb56d16b:autoScalingGroupName/ASGTerminate", "arn:aws:ec2:us-east-1:123456789012:instance/i-b188560f"]}`, true},
		{"array without intersection", `{"resources": ["a", "b"]}`, `{"resources": ["c", "d"]}`, false},
		{"array of objects", `{"employees": {"firstName": ["Anna"]}}`, `{"employees": [{"firstName": "John", "lastName": "Doe"}, {"firstName": "Anna", "lastName": "Smith"}]}`, true},
		{"array of objects is element-consistent", `{"employees": {"firstName": ["Anna"], "lastName": ["Jones"]}}`, `{"employees": [{"firstName": "Anna", "lastName": "Smith"}, {"firstName": "Peter", "lastName": "Jones"}]}`, false},
		{"$or", `{"source": ["aws.cloudwatch"], "$or": [{"metricName": ["CPUUtilization", "ReadLatency"]}, {"namespace": ["AWS/EC2", "AWS/ES"]}]}`, `{"source": "aws.cloudwatch", "namespace": "AWS/ES"}`, true},
		{"$or none holds", `{"source": ["aws.cloudwatch"], "$or": [{"metricName": ["CPUUtilization"]}, {"namespace": ["AWS/EC2"]}]}`, `{"source": "aws.cloudwatch", "namespace": "AWS/ES"}`, false},
		{"$or nested in an object with an and inside", `{"detail": {"$or": [{"a": [1]}, {"b": [2], "c": [3]}]}}`, `{"detail": {"b": 2, "c": 3}}`, true},
		{"numbers compare numerically", `{"n": [5]}`, `{"n": 5.0}`, true},
		{"a string never equals a number", `{"n": ["5"]}`, `{"n": 5}`, false},
		{"booleans", `{"flag": [true]}`, `{"flag": true}`, true},
		{"status change: cleanup rule", `{"source": ["aws.states"], "detail-type": ["Step Functions Execution Status Change"], "detail": {"status": ["FAILED", "TIMED_OUT", "ABORTED"], "stateMachineArn": ["arn:aws:states:us-east-1:012345678912:stateMachine:state-machine"]}}`, statusChangeEvent, true},
		{"status change: other machine", `{"source": ["aws.states"], "detail": {"stateMachineArn": ["arn:aws:states:us-east-1:012345678912:stateMachine:other"]}}`, statusChangeEvent, false},
		{"status change: nested detail object", `{"detail": {"inputDetails": {"included": [true]}}}`, statusChangeEvent, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := eventbus.CompilePattern(tt.pattern)
			if err != nil {
				t.Fatalf("CompilePattern: %v", err)
			}
			if got := p.Matches(tt.event); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPatternAcceptsDecodedValues(t *testing.T) {
	pattern := map[string]any{"detail": map[string]any{"count": []any{map[string]any{"numeric": []any{">=", 2}}}}}
	p, err := eventbus.CompilePattern(pattern)
	if err != nil {
		t.Fatalf("CompilePattern: %v", err)
	}
	tests := []struct {
		event any
		want  bool
	}{
		{map[string]any{"detail": map[string]any{"count": 2}}, true},
		{map[string]any{"detail": map[string]any{"count": 1.5}}, false},
		{[]byte(`{"detail": {"count": 3}}`), true},
		{struct {
			Detail map[string]int `json:"detail"`
		}{map[string]int{"count": 7}}, true},
		{`[1, 2]`, false},
		{`not json`, false},
	}
	for i, tt := range tests {
		if got := p.Matches(tt.event); got != tt.want {
			t.Errorf("case %d: Matches(%v) = %v, want %v", i, tt.event, got, tt.want)
		}
	}
}

func TestCompilePatternErrors(t *testing.T) {
	tests := []struct {
		name     string
		pattern  string
		wantErr  error
		wantPath string
	}{
		{"not JSON", `{"source": [`, eventbus.ErrInvalidPattern, ""},
		{"not an object", `["aws.states"]`, eventbus.ErrInvalidPattern, ""},
		{"empty pattern", `{}`, eventbus.ErrInvalidPattern, ""},
		{"scalar field", `{"source": "aws.states"}`, eventbus.ErrInvalidPattern, "source"},
		{"empty array", `{"source": []}`, eventbus.ErrInvalidPattern, "source"},
		{"empty nested object", `{"detail": {}}`, eventbus.ErrInvalidPattern, "detail"},
		{"array in an array", `{"source": [["a"]]}`, eventbus.ErrInvalidPattern, "source[0]"},
		{"two operators in one object", `{"source": [{"prefix": "a", "suffix": "b"}]}`, eventbus.ErrInvalidPattern, "source[0]"},
		{"unknown operator", `{"detail": {"type": [{"contains": "Normal"}]}}`, eventbus.ErrUnsupportedOperator, "detail.type[0].contains"},
		{"prefix of a number", `{"source": [{"prefix": 1}]}`, eventbus.ErrInvalidPattern, "source[0].prefix"},
		{"numeric upper bound first", `{"n": [{"numeric": ["<", 5, ">", 1]}]}`, eventbus.ErrInvalidPattern, "n[0].numeric"},
		{"numeric empty range", `{"n": [{"numeric": [">", 5, "<", 1]}]}`, eventbus.ErrInvalidPattern, "n[0].numeric"},
		{"numeric quoted number", `{"n": [{"numeric": ["=", "5"]}]}`, eventbus.ErrInvalidPattern, "n[0].numeric"},
		{"numeric unknown operator", `{"n": [{"numeric": ["!=", 5]}]}`, eventbus.ErrInvalidPattern, "n[0].numeric"},
		{"numeric equality in a range", `{"n": [{"numeric": ["=", 1, "<", 2]}]}`, eventbus.ErrInvalidPattern, "n[0].numeric"},
		{"exists not boolean", `{"n": [{"exists": "yes"}]}`, eventbus.ErrInvalidPattern, "n[0].exists"},
		{"anything-but mixed list", `{"n": [{"anything-but": ["a", 1]}]}`, eventbus.ErrInvalidPattern, "n[0].anything-but"},
		{"anything-but empty list", `{"n": [{"anything-but": []}]}`, eventbus.ErrInvalidPattern, "n[0].anything-but"},
		{"anything-but numeric", `{"n": [{"anything-but": {"numeric": [">", 1]}}]}`, eventbus.ErrUnsupportedOperator, "n[0].anything-but.numeric"},
		{"wildcard with consecutive stars", `{"n": [{"wildcard": "a**b"}]}`, eventbus.ErrInvalidPattern, "n[0].wildcard"},
		{"wildcard with a bad escape", `{"n": [{"wildcard": "a\\b"}]}`, eventbus.ErrInvalidPattern, "n[0].wildcard"},
		{"cidr out of range", `{"ip": [{"cidr": "10.0.0.0/33"}]}`, eventbus.ErrInvalidPattern, "ip[0].cidr"},
		{"$or with one alternative", `{"$or": [{"a": ["b"]}]}`, eventbus.ErrInvalidPattern, "$or"},
		{"$or alternative not an object", `{"$or": [{"a": ["b"]}, "c"]}`, eventbus.ErrInvalidPattern, "$or[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := eventbus.CompilePattern(tt.pattern)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			var pe *eventbus.PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *PatternError", err)
			}
			if pe.Path != tt.wantPath {
				t.Errorf("Path = %q, want %q", pe.Path, tt.wantPath)
			}
		})
	}
}

func TestWildcardMatching(t *testing.T) {
	tests := []struct {
		wildcard, value string
		want            bool
	}{
		{"Simple*Service", "SimpleNotificationService", true},
		{"Simple*Service", "SimpleService", true},
		{"Simple*Service", "SimpleQueue", false},
		{"*.png", "dir/photo.png", true},
		{"*/lib/*", "usr/lib/x", true},
		{"*/lib/*", "usr/libx", false},
		{"a*b*c", "abc", true},
		{"a*b*c", "acb", false},
		{"ab*ba", "aba", false},
		{`\*literal`, "*literal", true},
		{`\*literal`, "xliteral", false},
		{`back\\slash`, `back\slash`, true},
		{"exact", "exact", true},
		{"*", "", true},
	}
	for _, tt := range tests {
		p, err := eventbus.CompilePattern(map[string]any{"v": []any{map[string]any{"wildcard": tt.wildcard}}})
		if err != nil {
			t.Fatalf("CompilePattern(%q): %v", tt.wildcard, err)
		}
		if got := p.Matches(map[string]any{"v": tt.value}); got != tt.want {
			t.Errorf("wildcard %q vs %q = %v, want %v", tt.wildcard, tt.value, got, tt.want)
		}
	}
}
