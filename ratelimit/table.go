package ratelimit

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/ratelimit/gcra"
)

// DefaultKeyAttribute is the default partition key attribute name: the Semaphore construct's
// lock table key, so that one table can hold locks and rate items side by side.
const DefaultKeyAttribute = "LockName"

// DefaultKeyPrefix is prepended to a limiter's Name to form its item key, e.g. "rate#api".
const DefaultKeyPrefix = gcra.KeyPrefix

// API is the part of the DynamoDB client that the limiters use; *dynamodb.Client implements it.
type API interface {
	// GetItem reads one item.
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	// PutItem writes one item.
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	// UpdateItem updates one item.
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	// DeleteItem deletes one item.
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	// BatchGetItem reads up to 100 items.
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
}

// Table says where a limiter keeps its items: any table whose partition key is a string
// attribute, e.g. the Semaphore's lock table.
type Table struct {
	// Client talks to DynamoDB. Required.
	Client API
	// Name is the table name. Required.
	Name string
	// KeyAttribute is the name of the table's partition key (type S). Default:
	// DefaultKeyAttribute.
	KeyAttribute string
	// KeyPrefix is prepended to a limiter's Name to form its item key. Default: DefaultKeyPrefix.
	KeyPrefix string
	// SortKeyAttribute is the name of the table's sort key (type S) when it has one, such as
	// the Semaphore's lock table's "Entry": the limiter's items then carry gcra.Entry there.
	// Default: none.
	SortKeyAttribute string
}

// key is the primary key of the item whose partition key is value.
func (t Table) key(value string) map[string]types.AttributeValue {
	k := map[string]types.AttributeValue{t.KeyAttribute: &types.AttributeValueMemberS{Value: value}}
	if t.SortKeyAttribute != "" {
		k[t.SortKeyAttribute] = &types.AttributeValueMemberS{Value: gcra.Entry}
	}
	return k
}

// withDefaults returns t with its defaults filled in, or an error naming a missing field.
func (t Table) withDefaults() (Table, error) {
	if t.Client == nil {
		return t, fmt.Errorf("%w: Table.Client is required", ErrInvalidConfig)
	}
	if t.Name == "" {
		return t, fmt.Errorf("%w: Table.Name is required", ErrInvalidConfig)
	}
	if t.KeyAttribute == "" {
		t.KeyAttribute = DefaultKeyAttribute
	}
	if t.KeyPrefix == "" {
		t.KeyPrefix = DefaultKeyPrefix
	}
	return t, nil
}

// Counts counts a limiter's DynamoDB requests, to compute its cost per permit. Every item a
// limiter writes or reads is under 1 KB, so a write is 1 write unit, a strongly consistent
// read 1 read unit and an eventually consistent read 0.5.
type Counts struct {
	// Writes is the number of PutItem, UpdateItem and DeleteItem requests, including the
	// conditional writes whose condition failed (they consume a write unit too).
	Writes int64
	// StrongReads is the number of strongly consistent GetItem requests.
	StrongReads int64
	// EventualReads is the number of items read with eventually consistent reads.
	EventualReads int64
	// Permits is the number of permits granted to callers.
	Permits int64
}

// WriteUnits is the write capacity the requests consumed.
func (c Counts) WriteUnits() float64 { return float64(c.Writes) }

// ReadUnits is the read capacity the requests consumed.
func (c Counts) ReadUnits() float64 { return float64(c.StrongReads) + float64(c.EventualReads)/2 }
