package relay

// The bounds and knobs the tests of package relay_test set, which users do
// not: the defaults are sized for a relay in front of browsers.
const (
	DefaultMaxLogBytes  = defaultMaxLogBytes
	DefaultMaxTaskBytes = defaultMaxTaskBytes
)

var (
	WithKeepAlive      = withKeepAlive
	WithLogCaps        = withLogCaps
	WithMaxTasks       = withMaxTasks
	WithSubscriberCaps = withSubscriberCaps
	WithTTL            = withTTL
	WithTaskBudget     = withTaskBudget
	WithWriteTimeout   = withWriteTimeout
)

// MaxFrontendTextBytes bounds the text a front-end endpoint sends.
const MaxFrontendTextBytes = maxFrontendTextBytes
