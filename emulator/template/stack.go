package template

import (
	"crypto/sha256"
	"fmt"
)

// Pseudo parameters CloudFormation defines for every template.
const (
	pseudoRegion           = "AWS::Region"
	pseudoAccountID        = "AWS::AccountId"
	pseudoPartition        = "AWS::Partition"
	pseudoURLSuffix        = "AWS::URLSuffix"
	pseudoStackName        = "AWS::StackName"
	pseudoStackID          = "AWS::StackId"
	pseudoNoValue          = "AWS::NoValue"
	pseudoNotificationARNs = "AWS::NotificationARNs"
)

// stackContext is what the pseudo parameters and ARNs of one stack are made of.
type stackContext struct {
	name      string
	id        string
	region    string
	account   string
	partition string
	urlSuffix string
}

// newStackContext derives the pseudo parameter values of a stack; its StackId is a
// deterministic function of the stack's name, region and account.
func newStackContext(name string, o Options) stackContext {
	s := stackContext{
		name:      name,
		region:    o.Region,
		account:   o.Account,
		partition: o.Partition,
		urlSuffix: "amazonaws.com",
	}
	if o.Partition == "aws-cn" {
		s.urlSuffix = "amazonaws.com.cn"
	}
	s.id = s.arn("cloudformation", "stack/"+name+"/"+deterministicUUID(name, s.region, s.account))
	return s
}

// arn builds a regional ARN in this stack's partition, region and account.
func (s stackContext) arn(service, resource string) string {
	return fmt.Sprintf("arn:%s:%s:%s:%s:%s", s.partition, service, s.region, s.account, resource)
}

// globalARN builds an ARN of a global service (IAM), which has no region.
func (s stackContext) globalARN(service, resource string) string {
	return fmt.Sprintf("arn:%s:%s::%s:%s", s.partition, service, s.account, resource)
}

// pseudo returns the value of a pseudo parameter (AWS::NoValue excepted, see resolver.ref).
func (s stackContext) pseudo(name string) (any, bool) {
	switch name {
	case pseudoRegion:
		return s.region, true
	case pseudoAccountID:
		return s.account, true
	case pseudoPartition:
		return s.partition, true
	case pseudoURLSuffix:
		return s.urlSuffix, true
	case pseudoStackName:
		return s.name, true
	case pseudoStackID:
		return s.id, true
	case pseudoNotificationARNs:
		return []any{}, true
	}
	return nil, false
}

// deterministicUUID formats the SHA-256 of the parts as a version-4-shaped UUID.
func deterministicUUID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)[:16]
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
