package reconcile

import "errors"

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("reconcile: invalid configuration")
