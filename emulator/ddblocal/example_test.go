package ddblocal_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/emulator/ddblocal"
)

// Start a local DynamoDB API server, talk to it with the AWS SDK, and stop it.
func ExampleStart() {
	ctx := context.Background()
	srv, err := ddblocal.Start(ctx, ddblocal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	client, err := ddblocal.NewClient(ctx, srv.Endpoint())
	if err != nil {
		log.Fatal(err)
	}
	tables, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(tables.TableNames), "tables")
}
