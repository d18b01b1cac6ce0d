package semaphore

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/lock"
)

// newLockTable creates the lock table: on demand, point-in-time recovery, AWS-managed keys; with
// submissions, time to live on lock.AttributeTimeToLive (their status items expire).
func newLockTable(scope constructs.Construct, policy awscdk.RemovalPolicy, submissions bool) awsdynamodb.Table {
	var ttl *string
	if submissions {
		ttl = jsii.String(lock.AttributeTimeToLive)
	}
	return awsdynamodb.NewTable(scope, jsii.String("LockTable"), &awsdynamodb.TableProps{
		TimeToLiveAttribute: ttl,
		PartitionKey:        &awsdynamodb.Attribute{Name: jsii.String(PartitionKey), Type: awsdynamodb.AttributeType_STRING},
		SortKey:             &awsdynamodb.Attribute{Name: jsii.String(SortKey), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:         awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		Encryption:    awsdynamodb.TableEncryption_AWS_MANAGED,
		RemovalPolicy: policy,
	})
}

// removalPolicy returns Props.RemovalPolicy, or DefaultRemovalPolicy when it is unset.
func removalPolicy(p *Props) awscdk.RemovalPolicy {
	if p.RemovalPolicy == "" {
		return DefaultRemovalPolicy
	}
	return p.RemovalPolicy
}
