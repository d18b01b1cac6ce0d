package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// DefaultRegion is the region requests are signed for unless WithRegion says otherwise.
const DefaultRegion = "us-east-1"

// ErrInvalidEndpoint reports an endpoint that is not an absolute http(s) URL.
var ErrInvalidEndpoint = errors.New("dynamo: invalid endpoint")

// Integration runs DynamoDB Task states against one DynamoDB API server. It is safe for
// concurrent use.
type Integration struct {
	endpoint    string
	client      *http.Client
	region      string
	signer      *v4.Signer
	credentials aws.Credentials
}

// Option configures New.
type Option func(*Integration)

// WithHTTPClient sends the requests through client, e.g. one whose transport injects faults.
// Default (also for nil): a direct client with a pool of keep-alive connections.
func WithHTTPClient(client *http.Client) Option {
	return func(i *Integration) {
		if client != nil {
			i.client = client
		}
	}
}

// WithRegion signs the requests for region. Default: DefaultRegion.
func WithRegion(region string) Option {
	return func(i *Integration) { i.region = region }
}

// WithAccessKey signs the requests with the access key ID id: a DynamoDB Local that keeps a
// database per access key and region (ddblocal.Options.DatabasePerAccessKey) then serves the
// database of id and the region of WithRegion. Default: "local".
func WithAccessKey(id string) Option {
	return func(i *Integration) { i.credentials.AccessKeyID = id }
}

// New returns an Integration that sends its requests to the DynamoDB API server at endpoint,
// e.g. "http://127.0.0.1:8000".
func New(endpoint string, opts ...Option) (*Integration, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w %q: want an absolute http(s) URL such as http://127.0.0.1:8000", ErrInvalidEndpoint, endpoint)
	}
	i := &Integration{
		endpoint: endpoint,
		client:   newHTTPClient(),
		region:   DefaultRegion,
		signer:   v4.NewSigner(),
		// The local server checks that requests are signed, not by whom.
		credentials: aws.Credentials{AccessKeyID: "local", SecretAccessKey: "local", Source: "turnstile emulator"},
	}
	for _, opt := range opts {
		opt(i)
	}
	return i, nil
}

// Supports reports whether the Task resource ARN is one this integration runs: an optimized
// DynamoDB action or an AWS SDK integration of a DynamoDB API action, without an integration
// pattern suffix. Invoke explains why any other resource is not supported.
func (i *Integration) Supports(resource string) bool {
	_, err := parseResource(resource)
	return err == nil
}

// Invoke runs a Task whose resource is resource with the effective parameters params (JSON values
// as ojg produces them: map[string]any, []any, string, bool, nil, int64, float64) and returns the
// task result as such a JSON value.
//
// A failure that Step Functions would report is an *asl.Error with its name and cause: a DynamoDB
// error reply, or "DynamoDB.SdkClientException" / "DynamoDb.SdkClientException" when the server
// cannot be reached. Problems of the emulator itself are an *asl.Error named States.Runtime that
// also wraps ErrUnsupportedResource, ErrInvalidParameters or ErrNotEmulated. When ctx ends first,
// the error wraps ctx's error and is not an *asl.Error: the caller decides what that means.
func (i *Integration) Invoke(ctx context.Context, resource string, params any) (any, error) {
	t, err := parseResource(resource)
	if err != nil {
		return nil, runtimeFailure(ErrUnsupportedResource, fmt.Sprintf("The resource %q is not supported: %v", resource, err))
	}
	object, isObject := params.(map[string]any)
	if !isObject {
		return nil, runtimeFailure(ErrInvalidParameters, fmt.Sprintf("The parameters of %s must be a JSON object, got %T", resource, params))
	}
	body, err := json.Marshal(object)
	if err != nil {
		return nil, runtimeFailure(ErrInvalidParameters, fmt.Sprintf("The parameters of %s cannot be encoded as JSON: %v", resource, err))
	}

	r, err := i.call(ctx, t.operation, body)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("dynamo: %s: %w", t.operation, ctxErr)
		}
		return nil, t.flavor.clientFailure("Unable to execute HTTP request: " + err.Error())
	}
	if r.status == http.StatusOK {
		return t.flavor.result(r)
	}
	e := parseServiceError(r)
	if e.code == "UnknownOperationException" {
		return nil, runtimeFailure(ErrNotEmulated, fmt.Sprintf(
			"%s is a DynamoDB API action, but the local DynamoDB server does not implement it", t.operation))
	}
	return nil, t.flavor.failure(e)
}
