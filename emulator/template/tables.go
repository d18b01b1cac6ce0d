package template

// Table is an AWS::DynamoDB::Table, with what the emulator needs to create it locally.
type Table struct {
	// LogicalID is the resource's logical ID in the template.
	LogicalID string
	// CDKPath is the construct path CDK recorded in the aws:cdk:path metadata ("" if none).
	CDKPath string
	// Name is the physical table name (TableName, or the emulator's deterministic name).
	Name string
	// ARN is the table's ARN.
	ARN string
	// StreamARN is the ARN of the table's stream; "" when StreamSpecification is not set.
	StreamARN string
	// KeySchema is the primary key.
	KeySchema []KeySchemaElement
	// AttributeDefinitions declares the key attributes' types.
	AttributeDefinitions []AttributeDefinition
	// GlobalSecondaryIndexes are the table's GSIs, in template order.
	GlobalSecondaryIndexes []SecondaryIndex
	// LocalSecondaryIndexes are the table's LSIs, in template order.
	LocalSecondaryIndexes []SecondaryIndex
	// BillingMode is PROVISIONED (CloudFormation's default) or PAY_PER_REQUEST.
	BillingMode string
	// ProvisionedThroughput is set for provisioned tables.
	ProvisionedThroughput *ProvisionedThroughput
	// StreamViewType is the stream's view type; "" without a stream.
	StreamViewType string
	// TimeToLiveAttribute names the TTL attribute when TTL is enabled; "" otherwise.
	TimeToLiveAttribute string
}

// KeySchemaElement is one attribute of a key schema.
type KeySchemaElement struct {
	// AttributeName names the key attribute.
	AttributeName string `json:"AttributeName"`
	// KeyType is HASH or RANGE.
	KeyType string `json:"KeyType"`
}

// AttributeDefinition declares the type of a key attribute.
type AttributeDefinition struct {
	// AttributeName names the attribute.
	AttributeName string `json:"AttributeName"`
	// AttributeType is S, N or B.
	AttributeType string `json:"AttributeType"`
}

// SecondaryIndex is a global or local secondary index.
type SecondaryIndex struct {
	// IndexName names the index.
	IndexName string `json:"IndexName"`
	// KeySchema is the index key.
	KeySchema []KeySchemaElement `json:"KeySchema"`
	// Projection says which attributes the index holds.
	Projection Projection `json:"Projection"`
	// ProvisionedThroughput is set for indexes of provisioned tables.
	ProvisionedThroughput *ProvisionedThroughput `json:"ProvisionedThroughput,omitempty"`
}

// Projection is an index projection.
type Projection struct {
	// ProjectionType is ALL, KEYS_ONLY or INCLUDE.
	ProjectionType string `json:"ProjectionType"`
	// NonKeyAttributes lists the attributes an INCLUDE projection holds.
	NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
}

// ProvisionedThroughput is a table's or index's provisioned capacity.
type ProvisionedThroughput struct {
	// ReadCapacityUnits is the provisioned read capacity.
	ReadCapacityUnits int64 `json:"ReadCapacityUnits"`
	// WriteCapacityUnits is the provisioned write capacity.
	WriteCapacityUnits int64 `json:"WriteCapacityUnits"`
}

// DynamoDB billing modes.
const (
	BillingModeProvisioned   = "PROVISIONED"
	BillingModePayPerRequest = "PAY_PER_REQUEST"
)

// table resolves an AWS::DynamoDB::Table.
func (r *resolver) table(id string, res rawResource) (Table, error) {
	t := Table{LogicalID: id, CDKPath: res.cdkPath()}
	name, err := r.physicalName(id, res)
	if err != nil {
		return t, err
	}
	attrs, _, err := r.attributes(id, res, name)
	if err != nil {
		return t, err
	}
	t.Name, t.ARN = name, attrs["Arn"]
	for _, field := range []struct {
		property string
		dst      any
	}{
		{"KeySchema", &t.KeySchema},
		{"AttributeDefinitions", &t.AttributeDefinitions},
		{"GlobalSecondaryIndexes", &t.GlobalSecondaryIndexes},
		{"LocalSecondaryIndexes", &t.LocalSecondaryIndexes},
	} {
		if _, err := r.decodeProperty(id, res, field.property, field.dst); err != nil {
			return t, err
		}
	}
	if t.BillingMode, err = r.stringProperty(id, res, "BillingMode", BillingModeProvisioned); err != nil {
		return t, err
	}
	var throughput ProvisionedThroughput
	if present, err := r.decodeProperty(id, res, "ProvisionedThroughput", &throughput); err != nil {
		return t, err
	} else if present {
		t.ProvisionedThroughput = &throughput
	}
	var stream struct {
		StreamViewType string `json:"StreamViewType"`
	}
	if present, err := r.decodeProperty(id, res, "StreamSpecification", &stream); err != nil {
		return t, err
	} else if present {
		t.StreamARN, t.StreamViewType = attrs["StreamArn"], stream.StreamViewType
	}
	var ttl struct {
		AttributeName string `json:"AttributeName"`
		Enabled       bool   `json:"Enabled"`
	}
	if present, err := r.decodeProperty(id, res, "TimeToLiveSpecification", &ttl); err != nil {
		return t, err
	} else if present && ttl.Enabled {
		t.TimeToLiveAttribute = ttl.AttributeName
	}
	return t, nil
}
