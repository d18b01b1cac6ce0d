// Package faultproxy puts a fault-injecting HTTP reverse proxy in front of a DynamoDB API server
// (DynamoDB Local, in tests), so that tests can prove what the lock does when the network misbehaves.
//
// For a chosen fraction of the requests, optionally only those of some DynamoDB operations (read
// from the X-Amz-Target header), the proxy injects one of three faults:
//
//   - AppliedReplyLost: the request is forwarded and applied, then the reply is thrown away and
//     the client's connection is reset. The client sees a transport error although its write
//     landed: the case the lock's read-back exists for.
//   - LostBefore: the connection is reset without forwarding the request. The client sees the
//     same transport error, but nothing was applied.
//   - Throttled: the proxy answers HTTP 400 with a throttling error in DynamoDB's JSON error shape
//     (ProvisionedThroughputExceededException unless Config.ThrottleCode says otherwise), without
//     forwarding.
//
// The faults are drawn from a random source seeded with Config.Seed: the n-th request that the
// filter selects always gets the same fate for a given seed. Which request is the n-th depends
// on the order in which concurrent requests arrive.
//
// The proxy also accounts for capacity: Stats gives the read and write units the forwarded
// requests consumed (the server reports them; the proxy adds ReturnConsumedCapacity TOTAL to
// requests that lack it and takes ConsumedCapacity out of their replies again), the failed
// conditional writes and the units DynamoDB bills for them (ceil(size of the existing item /
// 1 KB), at least 1: the proxy asks for the existing item with
// ReturnValuesOnConditionCheckFailure ALL_OLD and sizes it), cancelled transactions among them,
// and the largest item seen. Transactions and BatchGetItem it bills itself, after the
// DynamoDB developer guide, where DynamoDB Local's figures differ. See capacity.go and
// transact.go for the method.
//
// What the clients see: the Step Functions DynamoDB integration of the emulator
// (emulator/dynamo) names a reset connection "DynamoDB.SdkClientException", which the semaphore
// machine retries, and a throttle "DynamoDB.ProvisionedThroughputExceededException". The AWS SDK
// for Go v2 retries both by itself (up to its attempt limit), so a conditional write whose reply
// was lost comes back as ConditionalCheckFailedException on the retry.
//
//	proxy, err := faultproxy.Start(srv.Endpoint(), faultproxy.Config{
//		Seed:             1,
//		AppliedReplyLost: 0.05,
//		LostBefore:       0.025,
//		Operations:       []string{"UpdateItem"},
//	})
//	if err != nil {
//		return err
//	}
//	defer proxy.Close()
//	in, err := dynamo.New(proxy.URL())
//	// ... run the workload through in, then:
//	fmt.Println(proxy.Stats().AppliedReplyLost)
package faultproxy
