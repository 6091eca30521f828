// Package callee names the public test agent
// ([github.com/tfrs/a2a-progress/client/agenttest]) the way the
// repository's own tests, benchmarks and `a2a-tail demo` call it, and holds
// the lists of every transport and version they iterate over. It adds no
// behaviour: users import agenttest.
package callee

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/tfrs/a2a-progress/client/agenttest"
)

// The protocol versions a Server speaks.
const (
	V1 = agenttest.V1
	V0 = agenttest.V0
)

// RealisticName and RealisticReply are those of [agenttest.Realistic].
const (
	RealisticName  = agenttest.RealisticName
	RealisticReply = agenttest.RealisticReply
)

// Transports lists the transports a Server serves, each in V1 and V0.
var Transports = []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON, a2a.TransportProtocolGRPC}

// Versions lists the protocol versions a Server serves.
var Versions = []a2a.ProtocolVersion{V1, V0}

type (
	// Server is [agenttest.Agent].
	Server = agenttest.Agent
	// ServerOption is [agenttest.Option].
	ServerOption = agenttest.Option
	// Script is [agenttest.Script].
	Script = agenttest.Script
	// Step is [agenttest.Step].
	Step = agenttest.Step
	// Knob is [agenttest.Knob].
	Knob = agenttest.Knob
)

// Start is [agenttest.New].
func Start(opts ...ServerOption) (*Server, error) { return agenttest.New(opts...) }

// Re-exports of agenttest's functions, under the same names.
var (
	WithHistoryLimit = agenttest.WithHistoryLimit
	WithLogger       = agenttest.WithLogger
	Realistic        = agenttest.Realistic
	Trajectory       = agenttest.Trajectory
	Reorder          = agenttest.Reorder
	Duplicate        = agenttest.Duplicate
	SkipSeqs         = agenttest.SkipSeqs
	PlainText        = agenttest.PlainText
	Oversize         = agenttest.Oversize
	EndIn            = agenttest.EndIn
	PauseEvery       = agenttest.PauseEvery
	StartSeq         = agenttest.StartSeq
	Named            = agenttest.Named
)
