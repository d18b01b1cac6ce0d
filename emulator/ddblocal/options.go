package ddblocal

import "time"

// DefaultStartTimeout bounds how long Start waits for DynamoDB Local to answer when
// Options.StartTimeout is zero. The JVM and DynamoDB Local start in about 2 s here; the margin is
// for a loaded machine.
const DefaultStartTimeout = 60 * time.Second

// Options configures Start. The zero value is ready to use.
type Options struct {
	// Dir is the directory holding DynamoDBLocal.jar and DynamoDBLocal_lib/, as `make setup`
	// installs them. Default: .cdk/dynamodb-local of the Turnstile checkout found by walking up
	// from the working directory, else from this package's source directory, else
	// UserInstallDir (where `turnstile setup` installs it).
	Dir string
	// Java is the java command (Java 17 or newer). Default: java from $PATH.
	Java string
	// StartTimeout bounds the wait for DynamoDB Local to listen and answer. Default:
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// Port is the loopback port DynamoDB Local listens on, for clients configured ahead (a
	// long-running local stack). Start fails with ErrPortInUse when another process holds it.
	// Default: 0, a free port.
	Port int
	// DatabasePerAccessKey starts DynamoDB Local without -sharedDb: each access key ID and
	// region a client signs with then has a database of its own, so that several stacks can
	// share one server with the same table names (see WithAccessKey). Tests set it to start one
	// server per test binary instead of one per stack. Default: false, one database whatever the
	// client's credentials and region, as one account's tables are.
	DatabasePerAccessKey bool
}

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return DefaultStartTimeout
}
