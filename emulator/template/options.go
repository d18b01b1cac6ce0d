package template

// Defaults applied by Load to empty Options fields (unless the cloud assembly names a concrete
// account or region for the stack).
const (
	// DefaultRegion is the region local resources are placed in.
	DefaultRegion = "us-east-1"
	// DefaultAccount is the account ID local resources are placed in.
	DefaultAccount = "000000000000"
	// DefaultPartition is the AWS partition of every ARN.
	DefaultPartition = "aws"
)

// Options tune how Load resolves a template.
type Options struct {
	// Region is the value of AWS::Region and the region in every ARN.
	// Default: the stack's environment in the cloud assembly if concrete, else DefaultRegion.
	Region string
	// Account is the value of AWS::AccountId and the account in every ARN.
	// Default: the stack's environment in the cloud assembly if concrete, else DefaultAccount.
	Account string
	// Partition is the value of AWS::Partition. Default: DefaultPartition.
	Partition string
	// StackName selects the stack of a cloud assembly (by stack name, artifact ID or display
	// name) and is the value of AWS::StackName. Default: the only stack of the assembly; for a
	// lone template file, the file name without ".template.json".
	StackName string
	// Parameters gives values to template parameters, overriding their Default.
	// Default: none (parameters resolve to their Default).
	Parameters map[string]string
}

// withDefaults fills empty fields from the assembly's environment and the package defaults.
func (o Options) withDefaults(envAccount, envRegion string) Options {
	if o.Region == "" {
		o.Region = firstNonEmpty(envRegion, DefaultRegion)
	}
	if o.Account == "" {
		o.Account = firstNonEmpty(envAccount, DefaultAccount)
	}
	if o.Partition == "" {
		o.Partition = DefaultPartition
	}
	return o
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
