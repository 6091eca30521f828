package redisstore_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/internal/redistest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type redisServer = redistest.Server

func startRedis(t *testing.T, args ...string) *redisServer { return redistest.Start(t, args...) }
