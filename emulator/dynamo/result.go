package dynamo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ohler55/ojg/oj"
)

// sdkHTTPHeaders are the response headers that the optimized integration copies into
// SdkHttpMetadata, spelled as AWS returns them.
var sdkHTTPHeaders = []string{
	"Connection", "Content-Length", "Content-Type", "Date", "Server", "x-amz-crc32", requestIDHeader,
}

// result turns a successful reply into the task result: the API response as a JSON value, plus,
// for the optimized integration, the metadata the AWS SDK for Java v1 adds:
//
//	{"Item": {...},
//	 "SdkHttpMetadata": {"AllHttpHeaders": {"Content-Type": ["application/x-amz-json-1.0"], ...},
//	                     "HttpHeaders": {"Content-Type": "application/x-amz-json-1.0", ...},
//	                     "HttpStatusCode": 200},
//	 "SdkResponseMetadata": {"RequestId": "..."}}
//
// Only the headers of sdkHTTPHeaders that the server sent are listed.
func (f flavor) result(r reply) (any, error) {
	parsed, err := oj.Parse(r.body)
	response, isObject := parsed.(map[string]any)
	if err != nil || !isObject {
		return nil, f.clientFailure(fmt.Sprintf("Unable to unmarshall response (%s). Response Code: %d, Response Text: %.200q",
			describeParseFailure(err), r.status, r.body))
	}
	if f == optimized {
		all, single := map[string]any{}, map[string]any{}
		for _, name := range sdkHTTPHeaders {
			if v := r.header.Get(name); v != "" {
				all[name] = []any{v}
				single[name] = v
			}
		}
		response["SdkHttpMetadata"] = map[string]any{
			"AllHttpHeaders": all,
			"HttpHeaders":    single,
			"HttpStatusCode": int64(r.status),
		}
		response["SdkResponseMetadata"] = map[string]any{"RequestId": r.requestID()}
	}
	return response, nil
}

func describeParseFailure(err error) string {
	if err != nil {
		return err.Error()
	}
	return "not a JSON object"
}

// parseServiceError reads a DynamoDB error reply: {"__type": "namespace#Code", "message": "..."}
// (some errors say "Message"). A reply without a readable body is named after its status.
func parseServiceError(r reply) serviceError {
	var body struct {
		Type         string `json:"__type"`
		Message      string `json:"message"`
		MessageUpper string `json:"Message"`
	}
	e := serviceError{status: r.status, requestID: r.requestID()}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Type == "" {
		e.code = "UnknownError"
		e.message = fmt.Sprintf("HTTP status %d", r.status)
		return e
	}
	_, e.code, _ = strings.Cut(body.Type, "#")
	if e.code == "" {
		e.code = body.Type
	}
	e.message = body.Message
	if e.message == "" {
		e.message = body.MessageUpper
	}
	return e
}
