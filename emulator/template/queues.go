package template

import "time"

// Queue is an AWS::SQS::Queue (typically a rule target's dead-letter queue).
type Queue struct {
	// LogicalID is the resource's logical ID in the template.
	LogicalID string
	// CDKPath is the construct path CDK recorded in the aws:cdk:path metadata ("" if none).
	CDKPath string
	// Name is the physical queue name (QueueName, or the emulator's deterministic name).
	Name string
	// ARN is the queue's ARN.
	ARN string
	// URL is the queue's URL (what Ref returns).
	URL string
	// FIFO reports a FIFO queue.
	FIFO bool
	// VisibilityTimeout is the visibility timeout (default 30 s).
	VisibilityTimeout time.Duration
	// MessageRetentionPeriod is how long messages are kept (default 4 days).
	MessageRetentionPeriod time.Duration
	// DeadLetterTargetARN is the RedrivePolicy's dead-letter queue ("" if none).
	DeadLetterTargetARN string
	// MaxReceiveCount is the RedrivePolicy's receive limit (0 if none).
	MaxReceiveCount int
}

// SQS defaults applied when the template does not set a value.
const (
	DefaultQueueVisibilityTimeoutSeconds = 30
	DefaultQueueRetentionSeconds         = 4 * 24 * 60 * 60
)

// queue resolves an AWS::SQS::Queue.
func (r *resolver) queue(id string, res rawResource) (Queue, error) {
	q := Queue{LogicalID: id, CDKPath: res.cdkPath()}
	name, err := r.physicalName(id, res)
	if err != nil {
		return q, err
	}
	attrs, _, err := r.attributes(id, res, name)
	if err != nil {
		return q, err
	}
	q.Name, q.ARN, q.URL = name, attrs["Arn"], attrs["QueueUrl"]
	if q.FIFO, err = r.boolProperty(id, res, "FifoQueue", false); err != nil {
		return q, err
	}
	if q.VisibilityTimeout, err = r.secondsProperty(id, res, "VisibilityTimeout", DefaultQueueVisibilityTimeoutSeconds); err != nil {
		return q, err
	}
	if q.MessageRetentionPeriod, err = r.secondsProperty(id, res, "MessageRetentionPeriod", DefaultQueueRetentionSeconds); err != nil {
		return q, err
	}
	var redrive struct {
		DeadLetterTargetArn string `json:"deadLetterTargetArn"`
		MaxReceiveCount     int    `json:"maxReceiveCount"`
	}
	if _, err := r.decodeProperty(id, res, "RedrivePolicy", &redrive); err != nil {
		return q, err
	}
	q.DeadLetterTargetARN, q.MaxReceiveCount = redrive.DeadLetterTargetArn, redrive.MaxReceiveCount
	return q, nil
}
