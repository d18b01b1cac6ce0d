package demo

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// AlarmTopicID is the construct ID (after Config.Prefix) of the topic the demo's alarms notify.
const AlarmTopicID = "Alarms"

// OutputAlarmTopicArn is the stack output naming the alarm topic: subscribe to it to hear of
// the semaphore's alarms.
const OutputAlarmTopicArn = "AlarmTopicArn"

// addMonitoring turns on the semaphore's alarms, notifying a topic of their own (encrypted with
// the AWS-managed key, TLS only), and its dashboard.
func addMonitoring(s awscdk.Stack, cfg Config, sem semaphore.Semaphore) {
	topic := awssns.NewTopic(s, jsii.String(cfg.Prefix+AlarmTopicID), &awssns.TopicProps{
		EnforceSSL: jsii.Bool(true),
		MasterKey:  awskms.Alias_FromAliasName(s, jsii.String(cfg.Prefix+AlarmTopicID+"Key"), jsii.String("alias/aws/sns")),
	})
	sem.AddAlarms(&semaphore.AlarmProps{Actions: []awscloudwatch.IAlarmAction{awscloudwatchactions.NewSnsAction(topic)}})
	sem.AddDashboard(nil)
	awscdk.NewCfnOutput(s, jsii.String(OutputAlarmTopicArn), &awscdk.CfnOutputProps{
		Value: topic.TopicArn(), Description: jsii.String("Subscribe here to hear of the semaphore's alarms"),
	})
}
