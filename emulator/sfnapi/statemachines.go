package sfnapi

// DescribeStateMachineInput is the request of DescribeStateMachine.
type DescribeStateMachineInput struct {
	// StateMachineArn is the state machine, or one of its versions or aliases. Required.
	StateMachineArn string `json:"stateMachineArn"`
	// IncludedData is ALL_DATA (the default) or METADATA_ONLY.
	IncludedData IncludedData `json:"includedData,omitempty"`
}

// DescribeStateMachineOutput is the response of DescribeStateMachine.
type DescribeStateMachineOutput struct {
	StateMachineArn         string                   `json:"stateMachineArn"`
	Name                    string                   `json:"name"`
	Status                  StateMachineStatus       `json:"status,omitempty"`
	Definition              string                   `json:"definition"`
	RoleArn                 string                   `json:"roleArn"`
	Type                    StateMachineType         `json:"type"`
	CreationDate            Timestamp                `json:"creationDate"`
	LoggingConfiguration    *LoggingConfiguration    `json:"loggingConfiguration,omitempty"`
	TracingConfiguration    *TracingConfiguration    `json:"tracingConfiguration,omitempty"`
	Label                   string                   `json:"label,omitempty"`
	RevisionID              string                   `json:"revisionId,omitempty"`
	Description             string                   `json:"description,omitempty"`
	EncryptionConfiguration *EncryptionConfiguration `json:"encryptionConfiguration,omitempty"`
	VariableReferences      map[string][]string      `json:"variableReferences,omitempty"`
}

// LoggingConfiguration is where and how much a state machine logs.
type LoggingConfiguration struct {
	Level                LogLevel         `json:"level,omitempty"`
	IncludeExecutionData bool             `json:"includeExecutionData"`
	Destinations         []LogDestination `json:"destinations,omitempty"`
}

// LogDestination is a CloudWatch Logs destination of a state machine's logs.
type LogDestination struct {
	CloudWatchLogsLogGroup *CloudWatchLogsLogGroup `json:"cloudWatchLogsLogGroup,omitempty"`
}

// CloudWatchLogsLogGroup names a log group.
type CloudWatchLogsLogGroup struct {
	LogGroupArn string `json:"logGroupArn,omitempty"`
}

// TracingConfiguration tells whether X-Ray tracing is enabled.
type TracingConfiguration struct {
	Enabled bool `json:"enabled"`
}

// EncryptionConfiguration is how a state machine's data is encrypted.
type EncryptionConfiguration struct {
	Type                         string `json:"type"`
	KmsKeyID                     string `json:"kmsKeyId,omitempty"`
	KmsDataKeyReusePeriodSeconds int32  `json:"kmsDataKeyReusePeriodSeconds,omitempty"`
}

// ListStateMachinesInput is the request of ListStateMachines.
type ListStateMachinesInput struct {
	MaxResults int32  `json:"maxResults,omitempty"`
	NextToken  string `json:"nextToken,omitempty"`
}

// StateMachineListItem is one state machine in ListStateMachines.
type StateMachineListItem struct {
	StateMachineArn string           `json:"stateMachineArn"`
	Name            string           `json:"name"`
	Type            StateMachineType `json:"type"`
	CreationDate    Timestamp        `json:"creationDate"`
}

// ListStateMachinesOutput is the response of ListStateMachines.
type ListStateMachinesOutput struct {
	StateMachines []StateMachineListItem `json:"stateMachines"`
	NextToken     string                 `json:"nextToken,omitempty"`
}
