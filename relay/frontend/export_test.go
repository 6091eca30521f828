package frontend

import "testing"

// What the tests of package frontend_test use of this package's own: those
// tests drive relay's front-end endpoints (relay.Handler.AGUI, Chat), and
// package relay imports this one, so they cannot be in package frontend.

type (
	AGUIResult         = aguiResult
	AISDKResult        = aisdkResult
	HarnessCase[R any] = harnessCase[R]
)

// RunCases is runCases.
func RunCases[R any](t *testing.T, script string, cases []HarnessCase[R]) { runCases(t, script, cases) }

var (
	FrontendsNode = frontendsNode
	RunHarness    = runHarness
	CheckAGUI     = checkAGUI
	CheckAISDK    = checkAISDK
	WantShown     = wantShown
)
