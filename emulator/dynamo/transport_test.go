package dynamo

import (
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// cannedTransport answers every request with one reply and records the requests.
type cannedTransport struct {
	status   int
	header   http.Header
	body     string
	requests []*http.Request
	bodies   []string
}

func (c *cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	c.requests = append(c.requests, req)
	c.bodies = append(c.bodies, string(body))
	return &http.Response{
		StatusCode: c.status,
		Header:     c.header,
		Body:       io.NopCloser(strings.NewReader(c.body)),
		Request:    req,
	}, nil
}

func TestRequestsAreSignedDynamoDBJSON(t *testing.T) {
	tests := []struct {
		name       string
		opts       []Option
		wantRegion string
	}{
		{name: "default region", wantRegion: DefaultRegion},
		{name: "WithRegion", opts: []Option{WithRegion("eu-west-1")}, wantRegion: "eu-west-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			canned := &cannedTransport{status: http.StatusOK, header: http.Header{}, body: `{}`}
			in, err := New("http://127.0.0.1:1", append(tt.opts, WithHTTPClient(&http.Client{Transport: canned}))...)
			if err != nil {
				t.Fatal(err)
			}
			params := map[string]any{"TableName": "Locks", "Key": map[string]any{"LockName": s("a")}, "ConsistentRead": true}
			invoke(t, in, "arn:aws:states:::aws-sdk:dynamodb:getItem", params)

			if len(canned.requests) != 1 {
				t.Fatalf("requests sent = %d, want 1", len(canned.requests))
			}
			req := canned.requests[0]
			if got, want := req.Header.Get("X-Amz-Target"), "DynamoDB_20120810.GetItem"; got != want {
				t.Errorf("X-Amz-Target = %q, want %q", got, want)
			}
			if got := req.Header.Get("Content-Type"); got != contentType {
				t.Errorf("Content-Type = %q, want %q", got, contentType)
			}
			if auth, want := req.Header.Get("Authorization"), "/"+tt.wantRegion+"/dynamodb/aws4_request"; !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=local/") || !strings.Contains(auth, want) {
				t.Errorf("Authorization = %q, want a SigV4 signature scoped to %s", auth, want)
			}
			if got, want := canned.bodies[0], `{"ConsistentRead":true,"Key":{"LockName":{"S":"a"}},"TableName":"Locks"}`; got != want {
				t.Errorf("body = %s, want %s", got, want)
			}
		})
	}
}

func TestRepliesThatAreNotTheUsualShape(t *testing.T) {
	tests := []struct {
		name      string
		resource  string
		status    int
		body      string
		wantName  string
		wantCause string // a substring
	}{
		{name: "success that is not JSON", resource: "arn:aws:states:::dynamodb:getItem", status: 200, body: `<html>`,
			wantName: "DynamoDB.SdkClientException", wantCause: "Unable to unmarshall response"},
		{name: "success that is a JSON array", resource: "arn:aws:states:::aws-sdk:dynamodb:getItem", status: 200, body: `[]`,
			wantName: "DynamoDb.SdkClientException", wantCause: "not a JSON object"},
		{name: "error without a body", resource: "arn:aws:states:::dynamodb:putItem", status: 413, body: ``,
			wantName: "DynamoDB.AmazonDynamoDBException", wantCause: "HTTP status 413 (Service: AmazonDynamoDBv2; Status Code: 413; Error Code: UnknownError; Request ID: null; Proxy: null)"},
		{name: "error with Message", resource: "arn:aws:states:::dynamodb:putItem", status: 500, body: `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","Message":"boom"}`,
			wantName: "DynamoDB.InternalServerErrorException", wantCause: "boom (Service: AmazonDynamoDBv2; Status Code: 500; Error Code: InternalServerError;"},
		{name: "error type without a namespace", resource: "arn:aws:states:::aws-sdk:dynamodb:putItem", status: 400, body: `{"__type":"ThrottlingException","message":"slow down"}`,
			wantName: "DynamoDb.ThrottlingException", wantCause: "slow down (Service: DynamoDb, Status Code: 400, Request ID: null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			canned := &cannedTransport{status: tt.status, header: http.Header{}, body: tt.body}
			in, err := New("http://127.0.0.1:1", WithHTTPClient(&http.Client{Transport: canned}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = in.Invoke(t.Context(), tt.resource, map[string]any{"TableName": "Locks"})
			failure := taskFailure(t, err)
			if failure.Name != tt.wantName || !strings.Contains(failure.Cause, tt.wantCause) {
				t.Errorf("failure = %q / %q\nwant %q with a cause containing %q", failure.Name, failure.Cause, tt.wantName, tt.wantCause)
			}
		})
	}
}

func TestOptimizedMetadataListsOnlyTheHeadersSent(t *testing.T) {
	header := http.Header{}
	header.Set("Content-Type", contentType)
	header.Set("x-amzn-RequestId", "REQ")
	header.Set("X-Unrelated", "dropped")
	canned := &cannedTransport{status: http.StatusOK, header: header, body: `{"Attributes":{"count":{"N":"1"}}}`}
	in, err := New("http://127.0.0.1:1", WithHTTPClient(&http.Client{Transport: canned}))
	if err != nil {
		t.Fatal(err)
	}
	got := invoke(t, in, "arn:aws:states:::dynamodb:updateItem", map[string]any{"TableName": "Locks"})
	want := map[string]any{
		"Attributes": map[string]any{"count": n("1")},
		"SdkHttpMetadata": map[string]any{
			"AllHttpHeaders": map[string]any{"Content-Type": []any{contentType}, "x-amzn-RequestId": []any{"REQ"}},
			"HttpHeaders":    map[string]any{"Content-Type": contentType, "x-amzn-RequestId": "REQ"},
			"HttpStatusCode": int64(200),
		},
		"SdkResponseMetadata": map[string]any{"RequestId": "REQ"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("result = %#v\nwant %#v", got, want)
	}
}
