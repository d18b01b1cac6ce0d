package sfnapi

// SendTaskSuccessInput is the request of SendTaskSuccess.
type SendTaskSuccessInput struct {
	// TaskToken is the token of a task waiting for a callback ($$.Task.Token). Required.
	TaskToken string `json:"taskToken"`
	// Output is the task's result, JSON text; the server has checked it parses. Required.
	Output string `json:"output"`
}

// SendTaskSuccessOutput is the (empty) response of SendTaskSuccess.
type SendTaskSuccessOutput struct{}

// SendTaskFailureInput is the request of SendTaskFailure.
type SendTaskFailureInput struct {
	TaskToken string `json:"taskToken"`
	Error     string `json:"error,omitempty"`
	Cause     string `json:"cause,omitempty"`
}

// SendTaskFailureOutput is the (empty) response of SendTaskFailure.
type SendTaskFailureOutput struct{}

// SendTaskHeartbeatInput is the request of SendTaskHeartbeat.
type SendTaskHeartbeatInput struct {
	TaskToken string `json:"taskToken"`
}

// SendTaskHeartbeatOutput is the (empty) response of SendTaskHeartbeat.
type SendTaskHeartbeatOutput struct{}
