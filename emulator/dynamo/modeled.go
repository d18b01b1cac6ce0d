package dynamo

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// modeledErrors are the error codes that the DynamoDB API model declares (the exception shapes of
// the pinned AWS SDK for Go). The Java SDKs that Step Functions uses turn each into an exception
// class of its own; every other code (ValidationException, SerializationException,
// UnknownOperationException, ...) becomes the service's generic exception class.
var modeledErrors = errorCodes(
	&types.BackupInUseException{},
	&types.BackupNotFoundException{},
	&types.ConditionalCheckFailedException{},
	&types.ContinuousBackupsUnavailableException{},
	&types.DuplicateItemException{},
	&types.ExportConflictException{},
	&types.ExportNotFoundException{},
	&types.GlobalTableAlreadyExistsException{},
	&types.GlobalTableNotFoundException{},
	&types.IdempotentParameterMismatchException{},
	&types.ImportConflictException{},
	&types.ImportNotFoundException{},
	&types.IndexNotFoundException{},
	&types.InternalServerError{},
	&types.InvalidEndpointException{},
	&types.InvalidExportTimeException{},
	&types.InvalidRestoreTimeException{},
	&types.ItemCollectionSizeLimitExceededException{},
	&types.LimitExceededException{},
	&types.PointInTimeRecoveryUnavailableException{},
	&types.PolicyNotFoundException{},
	&types.ProvisionedThroughputExceededException{},
	&types.ReplicaAlreadyExistsException{},
	&types.ReplicaNotFoundException{},
	&types.ReplicatedWriteConflictException{},
	&types.RequestLimitExceeded{},
	&types.ResourceInUseException{},
	&types.ResourceNotFoundException{},
	&types.TableAlreadyExistsException{},
	&types.TableInUseException{},
	&types.TableNotFoundException{},
	&types.ThrottlingException{},
	&types.TransactionCanceledException{},
	&types.TransactionConflictException{},
	&types.TransactionInProgressException{},
)

func errorCodes(errs ...interface{ ErrorCode() string }) map[string]bool {
	codes := make(map[string]bool, len(errs))
	for _, e := range errs {
		codes[e.ErrorCode()] = true
	}
	return codes
}
