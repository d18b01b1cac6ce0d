// Package ddblocal runs a real DynamoDB API server for the local emulator and for tests: AWS's
// DynamoDB Local (DynamoDBLocal.jar, pinned and installed into .cdk/dynamodb-local by
// `make setup`), started in memory on a free port with Java 17 or newer and stopped with its
// whole process group.
//
// DynamoDB Local is AWS's own implementation of the DynamoDB API: transactions, and the
// ConsumedCapacity of every request that sets ReturnConsumedCapacity, as DynamoDB bills it.
// It is started with -sharedDb (one set of tables whatever the client's credentials and region),
// or with a database per access key ID and region (Options.DatabasePerAccessKey, for tests whose
// stacks share one server), and -disableTelemetry. It binds every interface (it has no option to
// choose one); clients use the loopback address of Endpoint. Table names need at least 3
// characters, as in DynamoDB.
//
// Start finds the install directory and java, launches DynamoDB Local, and returns once it
// answers ListTables; Close stops it and waits for it.
//
//	srv, err := ddblocal.Start(ctx, ddblocal.Options{})
//	if err != nil {
//		return err // errors.Is(err, ddblocal.ErrNotInstalled) when `make setup` has not run
//	}
//	defer srv.Close()
//
//	client, err := ddblocal.NewClient(ctx, srv.Endpoint())
//	if err != nil {
//		return err
//	}
//	_, err = client.ListTables(ctx, &dynamodb.ListTablesInput{})
package ddblocal
