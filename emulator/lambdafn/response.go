package lambdafn

import (
	"net/http"
	"strconv"
)

// header is one HTTP response header of Lambda's Invoke.
type header struct{ name, value string }

// responseDocument is the result of a lambda:invoke Task: Lambda's Invoke response as the AWS
// SDK for Java models it (the HTTP metadata and the response's own fields), with the payload
// parsed as JSON. An asynchronous or dry-run invocation has no ExecutedVersion and an empty
// string as Payload.
func (r *Registry) responseDocument(out *InvokeOutput, payload any) map[string]any {
	now := r.now()
	headers := []header{
		{"Connection", "keep-alive"},
		{"Content-Length", strconv.Itoa(len(out.Payload))},
		{"Content-Type", "application/json"},
		{"Date", now.UTC().Format(http.TimeFormat)},
		{"X-Amzn-Trace-Id", r.ids.traceID(now)},
		{"x-amzn-RequestId", out.RequestID},
	}
	doc := map[string]any{}
	if out.StatusCode == http.StatusOK {
		headers = append(headers,
			header{"X-Amz-Executed-Version", out.ExecutedVersion},
			header{"x-amzn-Remapped-Content-Length", "0"})
		doc["ExecutedVersion"] = out.ExecutedVersion
	} else {
		payload = ""
	}
	single := map[string]any{}
	all := map[string]any{}
	for _, h := range headers {
		single[h.name] = h.value
		all[h.name] = []any{h.value}
	}
	doc["Payload"] = payload
	doc["SdkHttpMetadata"] = map[string]any{
		"AllHttpHeaders": all,
		"HttpHeaders":    single,
		"HttpStatusCode": int64(out.StatusCode),
	}
	doc["SdkResponseMetadata"] = map[string]any{"RequestId": out.RequestID}
	doc["StatusCode"] = int64(out.StatusCode)
	return doc
}
