package stack

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/emulator/template"
)

// tableActiveTimeout bounds the wait for a new table to become ACTIVE in DynamoDB Local.
const tableActiveTimeout = 10 * time.Second

// createTables creates the template's tables, on demand, and waits until each is ACTIVE. It
// returns the names of the tables it created, those that failed to become active included.
func createTables(ctx context.Context, client *dynamodb.Client, tables []template.Table) (created []string, err error) {
	for _, t := range tables {
		if _, err := client.CreateTable(ctx, createTableInput(t)); err != nil {
			return created, fmt.Errorf("stack: create table %s (%s): %w", t.Name, t.LogicalID, err)
		}
		created = append(created, t.Name)
		waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
			o.MinDelay, o.MaxDelay = 5*time.Millisecond, 100*time.Millisecond
		})
		if err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.Name)}, tableActiveTimeout); err != nil {
			return created, fmt.Errorf("stack: table %s (%s) did not become active: %w", t.Name, t.LogicalID, err)
		}
	}
	return created, nil
}

// deleteTables deletes the tables the stack created, so that a shared DynamoDB Local does not
// keep their items in memory after the stack has closed.
func (s *Stack) deleteTables(ctx context.Context) error {
	client, err := s.DynamoDBClient(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range s.tables {
		if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			errs = append(errs, fmt.Errorf("stack: delete table %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// createTableInput translates a template table into a CreateTable request. Every table is
// created on demand: capacity is not emulated.
func createTableInput(t template.Table) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(t.Name),
		BillingMode:          ddbtypes.BillingModePayPerRequest,
		KeySchema:            keySchema(t.KeySchema),
		AttributeDefinitions: make([]ddbtypes.AttributeDefinition, len(t.AttributeDefinitions)),
	}
	for i, a := range t.AttributeDefinitions {
		in.AttributeDefinitions[i] = ddbtypes.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName),
			AttributeType: ddbtypes.ScalarAttributeType(a.AttributeType),
		}
	}
	for _, g := range t.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, ddbtypes.GlobalSecondaryIndex{
			IndexName: aws.String(g.IndexName), KeySchema: keySchema(g.KeySchema), Projection: projection(g.Projection),
		})
	}
	for _, l := range t.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, ddbtypes.LocalSecondaryIndex{
			IndexName: aws.String(l.IndexName), KeySchema: keySchema(l.KeySchema), Projection: projection(l.Projection),
		})
	}
	return in
}

func keySchema(elems []template.KeySchemaElement) []ddbtypes.KeySchemaElement {
	out := make([]ddbtypes.KeySchemaElement, len(elems))
	for i, e := range elems {
		out[i] = ddbtypes.KeySchemaElement{AttributeName: aws.String(e.AttributeName), KeyType: ddbtypes.KeyType(e.KeyType)}
	}
	return out
}

func projection(p template.Projection) *ddbtypes.Projection {
	out := &ddbtypes.Projection{ProjectionType: ddbtypes.ProjectionType(p.ProjectionType)}
	if len(p.NonKeyAttributes) > 0 {
		out.NonKeyAttributes = p.NonKeyAttributes
	}
	return out
}
