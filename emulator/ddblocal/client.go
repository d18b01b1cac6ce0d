package ddblocal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ClientRegion is the region NewClient signs requests for. DynamoDB Local accepts any; one
// started with Options.DatabasePerAccessKey keeps a database per access key ID and region.
const ClientRegion = "us-east-1"

// ClientAccessKeyID is the access key ID NewClient signs requests with unless WithAccessKey
// says otherwise. DynamoDB Local checks that requests are signed, not by whom.
const ClientAccessKeyID = "local"

// ErrInvalidEndpoint reports an endpoint that is not an absolute http(s) URL.
var ErrInvalidEndpoint = errors.New("ddblocal: invalid endpoint")

// idleConnTimeout closes idle connections well before the server's own idle timeout (Jetty's
// default is 30 s), so a request never goes out on a connection the server is closing.
const idleConnTimeout = 4 * time.Second

// NewClient returns an AWS SDK DynamoDB client for the server at endpoint, with static
// credentials and region ClientRegion. It reads no AWS configuration from the environment or from
// shared files, so a developer's AWS profile cannot redirect it. Building the client does no I/O;
// ctx is only checked for cancellation. optFns adjust the client (e.g. its retryer).
func NewClient(ctx context.Context, endpoint string, optFns ...func(*dynamodb.Options)) (*dynamodb.Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w %q: want an absolute http(s) URL such as http://127.0.0.1:8000", ErrInvalidEndpoint, endpoint)
	}
	cfg := aws.Config{
		Region:      ClientRegion,
		Credentials: credentials.NewStaticCredentialsProvider(ClientAccessKeyID, "local", ""),
		HTTPClient: awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.IdleConnTimeout = idleConnTimeout
		}),
	}
	return dynamodb.NewFromConfig(cfg, append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
	}}, optFns...)...), nil
}

// WithAccessKey is a NewClient option that signs with the access key ID id and the region region
// instead of ClientAccessKeyID and ClientRegion. On a server started with
// Options.DatabasePerAccessKey the client then sees the database of that key and region only. id
// must be letters A–Z, a–z and digits 0–9: DynamoDB Local answers other keys with an error.
func WithAccessKey(id, region string) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider(id, "local", "")
		o.Region = region
	}
}
