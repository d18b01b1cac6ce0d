package lambdafn

import (
	"fmt"
	"regexp"
	"strings"
)

// LatestVersion is the qualifier of a function's unpublished version, and the version Lambda
// reports as executed when an invocation names no version.
const LatestVersion = "$LATEST"

// The pieces of a Lambda function reference, as Lambda's Invoke API validates them.
var (
	functionNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)
	qualifierPattern    = regexp.MustCompile(`^(\$LATEST|[a-zA-Z0-9_-]{1,128})$`)
	partitionPattern    = regexp.MustCompile(`^aws[a-zA-Z-]*$`)
	regionPattern       = regexp.MustCompile(`^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d$`)
	accountPattern      = regexp.MustCompile(`^\d{12}$`)
)

// maxFunctionARNLength is the longest function reference Lambda accepts (a full, qualified ARN).
const maxFunctionARNLength = 170

// FunctionRef is a parsed Lambda function reference. Fields the reference did not spell out
// (the partition, region and account of a bare name, the qualifier of an unqualified name) are
// empty; a Registry fills them with its own region and account.
type FunctionRef struct {
	Partition string
	Region    string
	Account   string
	Name      string
	Qualifier string
}

// ParseFunctionName parses a function reference in any form Lambda's Invoke accepts:
//
//	my-function                                               a name
//	123456789012:function:my-function                         a partial ARN
//	arn:aws:lambda:us-east-1:123456789012:function:my-function a full ARN
//
// each optionally followed by a qualifier, ":$LATEST", a version (":3") or an alias (":prod").
// A reference Lambda would reject returns an error wrapping ErrInvalidFunctionName.
func ParseFunctionName(s string) (FunctionRef, error) {
	if len(s) > maxFunctionARNLength {
		return FunctionRef{}, invalidName(s, fmt.Sprintf("longer than %d characters", maxFunctionARNLength))
	}
	parts := strings.Split(s, ":")
	var ref FunctionRef
	switch {
	case parts[0] == "arn":
		if len(parts) != 7 && len(parts) != 8 {
			return FunctionRef{}, invalidName(s, "a function ARN has the form arn:partition:lambda:region:account:function:name[:qualifier]")
		}
		if parts[2] != "lambda" || parts[5] != "function" || parts[1] == "" || parts[3] == "" || parts[4] == "" {
			return FunctionRef{}, invalidName(s, "not a Lambda function ARN")
		}
		ref = FunctionRef{Partition: parts[1], Region: parts[3], Account: parts[4], Name: parts[6]}
		parts = parts[7:]
	case len(parts) >= 3 && parts[1] == "function":
		if len(parts) > 4 {
			return FunctionRef{}, invalidName(s, "a partial ARN has the form account:function:name[:qualifier]")
		}
		ref = FunctionRef{Account: parts[0], Name: parts[2]}
		parts = parts[3:]
	case len(parts) <= 2:
		ref = FunctionRef{Name: parts[0]}
		parts = parts[1:]
	default:
		return FunctionRef{}, invalidName(s, "not a function name, partial ARN or ARN")
	}
	if len(parts) == 1 {
		if !qualifierPattern.MatchString(parts[0]) {
			return FunctionRef{}, invalidName(s, fmt.Sprintf("qualifier %q must be $LATEST, a version or an alias", parts[0]))
		}
		ref.Qualifier = parts[0]
	}
	if err := ref.check(); err != nil {
		return FunctionRef{}, invalidName(s, err.Error())
	}
	return ref, nil
}

// check validates the fields that are set.
func (r FunctionRef) check() error {
	checks := []struct {
		field, value string
		pattern      *regexp.Regexp
	}{
		{"partition", r.Partition, partitionPattern},
		{"region", r.Region, regionPattern},
		{"account", r.Account, accountPattern},
	}
	if !functionNamePattern.MatchString(r.Name) {
		return fmt.Errorf("function name %q must be 1 to 64 letters, digits, '-', '_' or '.'", r.Name)
	}
	for _, c := range checks {
		if c.value != "" && !c.pattern.MatchString(c.value) {
			return fmt.Errorf("%s %q is not valid", c.field, c.value)
		}
	}
	return nil
}

// IsFullARN reports whether the reference spelled out partition, region and account.
func (r FunctionRef) IsFullARN() bool {
	return r.Partition != "" && r.Region != "" && r.Account != ""
}

// ARN renders the reference as a function ARN, with its qualifier when it has one.
// The partition defaults to "aws".
func (r FunctionRef) ARN() string {
	partition := r.Partition
	if partition == "" {
		partition = "aws"
	}
	arn := "arn:" + partition + ":lambda:" + r.Region + ":" + r.Account + ":function:" + r.Name
	if r.Qualifier != "" {
		arn += ":" + r.Qualifier
	}
	return arn
}

// Unqualified returns the reference without its qualifier.
func (r FunctionRef) Unqualified() FunctionRef {
	r.Qualifier = ""
	return r
}

func invalidName(s, why string) error {
	return fmt.Errorf("%w: %q: %s", ErrInvalidFunctionName, s, why)
}
