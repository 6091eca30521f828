package redisstore

// What the tests of package redisstore_test set, which users do not.
const DefaultPrefix = defaultPrefix

var (
	WithLogCaps = withLogCaps
	WithTTLs    = withTTLs
)
