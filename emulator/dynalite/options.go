package dynalite

import "time"

// EnvToolsDir names the environment variable that points Start at the pinned Node tooling when
// Options.ToolsDir is empty.
const EnvToolsDir = "TURNSTILE_TOOLS_DIR"

// DefaultStartTimeout bounds how long Start waits for dynalite to answer when
// Options.StartTimeout is zero. Node starts in well under a second; the margin is for a loaded
// machine.
const DefaultStartTimeout = 20 * time.Second

// Options configures Start. The zero value is ready to use.
type Options struct {
	// ToolsDir is the directory holding the pinned Node tooling: node_modules/.bin/node and
	// node_modules/dynalite. Default: the value of $TURNSTILE_TOOLS_DIR, else the .cdk directory
	// beside the go.mod found by walking up from the working directory.
	ToolsDir string

	// StartTimeout bounds the wait for dynalite to listen and answer. Default:
	// DefaultStartTimeout.
	StartTimeout time.Duration
}

func (o Options) startTimeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return DefaultStartTimeout
}
