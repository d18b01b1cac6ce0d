package dynalite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/turnstile-sfn/turnstile/emulator/dynalite"
)

// Start a local DynamoDB API server, talk to it with the AWS SDK, and stop it.
func ExampleStart() {
	ctx := context.Background()
	srv, err := dynalite.Start(ctx, dynalite.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	client, err := dynalite.NewClient(ctx, srv.Endpoint())
	if err != nil {
		log.Fatal(err)
	}
	tables, err := client.ListTables(ctx, &dynamodb.ListTablesInput{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(tables.TableNames), "tables")
}
