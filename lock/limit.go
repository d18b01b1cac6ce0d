package lock

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrNoDefault: nobody has set the semaphore's default limit in the lock table: its default is
// the limit its machine is configured with (the construct's Limit).
var ErrNoDefault = errors.New("lock: the semaphore has no default limit in the lock table (its machine's Limit applies)")

// ErrScanUnsupported: SetDefaultLimit pages through the table's counter items, which needs a
// DynamoDB client with Scan (*dynamodb.Client has it).
var ErrScanUnsupported = errors.New("lock: the DynamoDB client cannot Scan; pass a *dynamodb.Client")

// SemaphoreOf is the state machine ARN of an execution ARN
// (arn:aws:states:REGION:ACCOUNT:execution:MACHINE:NAME → …:stateMachine:MACHINE); ok is false
// for anything else.
func SemaphoreOf(execution string) (machine string, ok bool) {
	parts := strings.Split(execution, ":")
	if len(parts) != 8 || parts[0] != "arn" || parts[2] != "states" || parts[5] != "execution" {
		return "", false
	}
	return strings.Join(append(parts[:5:5], "stateMachine", parts[6]), ":"), true
}

// DefaultsKey is the key of semaphore's defaults item.
func DefaultsKey(semaphore string) map[string]types.AttributeValue {
	return Key(DefaultsPartition, semaphore)
}

// initLimit gives a counter item without a live limit its semaphore's default: the defaults
// item's limit, or configured (the construct's Limit) while there is none. It runs on a key's first park only (the counter item exists: the ticket was drawn),
// and returns the counter item as it is afterwards; after it the key's limit lives in its
// counter item. Its write sets the limit only if the item still has none (if_not_exists), so
// executions that park for the first time together cost a read and a write each, and no
// failed condition.
//
// Against a concurrent SetDefaultLimit it needs no transaction: that writes the defaults item
// first and then sets every counter item of the semaphore that exists, and a counter item that
// exists before the defaults item changed is set by it (if it is set first, this write keeps
// its value; if later, it overwrites this one), while one whose first park reads the defaults
// item after it changed reads the new value.
func (c *Client) initLimit(ctx context.Context, lock, execution string, configured int) (counter, error) {
	semaphore, ok := SemaphoreOf(execution)
	limit := configured
	if ok {
		d, err := c.defaultLimit(ctx, semaphore, configured)
		if err != nil {
			return counter{}, err
		}
		limit = d
	}
	update := "SET #limit = if_not_exists(#limit, :limit)"
	names := map[string]string{"#limit": AttributeLimit}
	values := map[string]types.AttributeValue{":limit": num(int64(limit))}
	if ok {
		update += ", #semaphore = if_not_exists(#semaphore, :semaphore)"
		names["#semaphore"] = AttributeSemaphore
		values[":semaphore"] = str(semaphore)
	}
	out, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:          aws.String(update),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return counter{}, classify("set the limit of "+lock, err)
	}
	return parseCounter(out.Attributes), nil
}

// defaultLimit reads semaphore's default limit: configured (the construct's Limit) until an
// operator sets one (SetDefaultLimit writes the defaults item).
func (c *Client) defaultLimit(ctx context.Context, semaphore string, configured int) (int, error) {
	d, err := c.DefaultLimit(ctx, semaphore)
	if errors.Is(err, ErrNoDefault) {
		return configured, nil
	}
	return d, err
}

// DefaultLimit reads semaphore's default limit (a strongly consistent read of its defaults
// item); ErrNoDefault when it has none yet.
func (c *Client) DefaultLimit(ctx context.Context, semaphore string) (int, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table), Key: DefaultsKey(semaphore), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return 0, classify("read the default limit of "+semaphore, err)
	}
	if n := numberOf(out.Item, AttributeLimit); n > 0 {
		return int(n), nil
	}
	return 0, fmt.Errorf("%w: %s", ErrNoDefault, semaphore)
}

// checkLimit refuses a limit outside 1..MaxLimit.
func checkLimit(limit int) error {
	if limit < 1 || limit > MaxLimit {
		return fmt.Errorf("%w: a limit must be from 1 to %d, got %d (pause a lock to admit nobody)", ErrInvalidRequest, MaxLimit, limit)
	}
	return nil
}

// SetLimit sets lock's live limit to limit, for this key alone (changing the semaphore's default
// leaves it alone), and admits waiters into the slots a raise freed (Admit). Lowering it admits
// nobody until the holders above it have finished: their releases give their slots back to the
// lock instead of handing them on. One write of the counter item.
func (c *Client) SetLimit(ctx context.Context, lock string, limit int) (AdmitResult, error) {
	if err := checkLimit(limit); err != nil {
		return AdmitResult{}, err
	}
	if lock == "" {
		return AdmitResult{}, fmt.Errorf("%w: setting a limit needs a lock name", ErrInvalidRequest)
	}
	_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:          aws.String("SET #limit = :limit, #override = :true"),
		ExpressionAttributeNames:  map[string]string{"#limit": AttributeLimit, "#override": AttributeLimitOverride},
		ExpressionAttributeValues: map[string]types.AttributeValue{":limit": num(int64(limit)), ":true": &types.AttributeValueMemberBOOL{Value: true}},
	})
	if err != nil {
		return AdmitResult{}, classify("set the limit of "+lock, err)
	}
	return c.Admit(ctx, lock)
}

// ClearLimit takes back lock's own limit: the lock follows its semaphore's default again, and
// waiters are admitted into slots that freed. Without a default in the table (or for a lock no
// park has tied to a semaphore) the lock's live limit goes: the limit its callers are
// configured with applies, and its next park copies it in.
func (c *Client) ClearLimit(ctx context.Context, lock string) (AdmitResult, error) {
	if lock == "" {
		return AdmitResult{}, fmt.Errorf("%w: clearing a limit needs a lock name", ErrInvalidRequest)
	}
	ctr, err := c.readCounter(ctx, lock)
	if err != nil || !ctr.exists {
		return AdmitResult{}, err
	}
	in := &dynamodb.UpdateItemInput{
		TableName: aws.String(c.table), Key: Key(lock, EntryLock),
		UpdateExpression:         aws.String("REMOVE #limit, #override"),
		ExpressionAttributeNames: map[string]string{"#limit": AttributeLimit, "#override": AttributeLimitOverride},
	}
	// Without a default in the table, the lock keeps no live limit: the limit its callers are
	// configured with applies (and its next park copies it in).
	if ctr.semaphore != "" {
		d, err := c.DefaultLimit(ctx, ctr.semaphore)
		switch {
		case errors.Is(err, ErrNoDefault):
		case err != nil:
			return AdmitResult{}, err
		default:
			in.UpdateExpression = aws.String("SET #limit = :limit REMOVE #override")
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":limit": num(int64(d))}
		}
	}
	if _, err := c.ddb.UpdateItem(ctx, in); err != nil {
		return AdmitResult{}, classify("clear the limit of "+lock, err)
	}
	return c.Admit(ctx, lock)
}

// ScanAPI is what SetDefaultLimit needs besides DynamoDBAPI; *dynamodb.Client has it.
type ScanAPI interface {
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// DefaultResult says what SetDefaultLimit did.
type DefaultResult struct {
	// Locks are the locks that follow the default and were set to it, in table order.
	Locks []string `json:"locks"`
	// Admitted are the waiters admitted into slots the change freed.
	Admitted []string `json:"admitted,omitempty"`
}

// SetDefaultLimit sets semaphore's default limit (semaphore is its state machine ARN): it
// writes the defaults item (which keys the semaphore uses for the first time take), then sets
// the live limit of every lock of the semaphore without a limit of its own (a consistent Scan
// of the table's counter items; one write each), then admits waiters into the slots a raise
// freed. Locks a Poll semaphore uses keep its machine's limit (they are tied to no semaphore).
func (c *Client) SetDefaultLimit(ctx context.Context, semaphore string, limit int) (DefaultResult, error) {
	if err := checkLimit(limit); err != nil {
		return DefaultResult{}, err
	}
	if !strings.Contains(semaphore, ":stateMachine:") {
		return DefaultResult{}, fmt.Errorf("%w: a default limit needs the semaphore's state machine ARN, got %q", ErrInvalidRequest, semaphore)
	}
	scan, ok := c.ddb.(ScanAPI)
	if !ok {
		return DefaultResult{}, ErrScanUnsupported
	}
	item := DefaultsKey(semaphore)
	item[AttributeLimit] = num(int64(limit))
	if _, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(c.table), Item: item}); err != nil {
		return DefaultResult{}, classify("write the default limit of "+semaphore, err)
	}
	var res DefaultResult
	p := dynamodb.NewScanPaginator(scan, &dynamodb.ScanInput{
		TableName:                 aws.String(c.table),
		ConsistentRead:            aws.Bool(true),
		FilterExpression:          aws.String("#entry = :lock AND #semaphore = :semaphore AND attribute_not_exists(#override)"),
		ExpressionAttributeNames:  map[string]string{"#entry": AttributeEntry, "#semaphore": AttributeSemaphore, "#override": AttributeLimitOverride},
		ExpressionAttributeValues: map[string]types.AttributeValue{":lock": str(EntryLock), ":semaphore": str(semaphore)},
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return res, classify("list the locks of "+semaphore, err)
		}
		for _, it := range page.Items {
			name := stringOf(it, AttributeLockName)
			_, err := c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName: aws.String(c.table), Key: Key(name, EntryLock),
				UpdateExpression:          aws.String("SET #limit = :limit"),
				ConditionExpression:       aws.String("#semaphore = :semaphore AND attribute_not_exists(#override)"),
				ExpressionAttributeNames:  map[string]string{"#limit": AttributeLimit, "#semaphore": AttributeSemaphore, "#override": AttributeLimitOverride},
				ExpressionAttributeValues: map[string]types.AttributeValue{":limit": num(int64(limit)), ":semaphore": str(semaphore)},
			})
			var failed *types.ConditionalCheckFailedException
			switch {
			case errors.As(err, &failed):
				continue // given a limit of its own meanwhile
			case err != nil:
				return res, classify("set the limit of "+name, err)
			}
			res.Locks = append(res.Locks, name)
		}
	}
	for _, name := range res.Locks {
		a, err := c.Admit(ctx, name)
		res.Admitted = append(res.Admitted, a.Admitted...)
		if err != nil {
			return res, err
		}
	}
	return res, nil
}
