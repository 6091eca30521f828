package frontend

// What the tests of package frontend_test use of this package's own: those
// tests drive relay's front-end endpoints (relay.Handler.AGUI, Chat), and
// package relay imports this one, so they cannot be in package frontend.

type (
	AGUIResult  = aguiResult
	AISDKResult = aisdkResult
)

var (
	FrontendsNode = frontendsNode
	RunHarness    = runHarness
	CheckAGUI     = checkAGUI
	CheckAISDK    = checkAISDK
	WantShown     = wantShown
)
