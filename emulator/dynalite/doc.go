// Package dynalite runs a real DynamoDB API server for the local emulator and for tests:
// dynalite (npm, pinned in the repository's .cdk/package.json and installed there by
// `make setup`), started in memory on a free loopback port and stopped with its whole process
// group.
//
// Start finds the pinned tooling, launches dynalite with the pinned Node runtime, and returns once
// the server answers; Close stops it and waits for it.
//
// As in DynamoDB, CreateTable answers while the table is still CREATING, and item requests fail
// with ResourceNotFoundException until it is ACTIVE. dynalite is started so that this lasts one
// turn of Node's event loop instead of half a second, but callers must still wait for it, e.g.
// with dynamodb.NewTableExistsWaiter and a MinDelay of a few milliseconds.
//
//	srv, err := dynalite.Start(ctx, dynalite.Options{})
//	if err != nil {
//		return err // errors.Is(err, dynalite.ErrNotInstalled) when `make setup` has not run
//	}
//	defer srv.Close()
//
//	client, err := dynalite.NewClient(ctx, srv.Endpoint())
//	if err != nil {
//		return err
//	}
//	_, err = client.ListTables(ctx, &dynamodb.ListTablesInput{})
package dynalite
