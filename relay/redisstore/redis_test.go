package redisstore_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/tfrs/a2a-progress/internal/redistest"
	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay/redisstore"
)

func TestMain(m *testing.M) {
	if code, ok := runChild(); ok {
		os.Exit(code)
	}
	goleak.VerifyTestMain(testdep.Reporting(m))
}

type redisServer = redistest.Server

func startRedis(t *testing.T, args ...string) *redisServer { return redistest.Start(t, args...) }

// evict deletes task's stream as Redis's eviction would (its numbering
// hash stays: eviction picks keys one by one).
func evict(t *testing.T, r *redisServer, task string) {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.Port)})
	defer rdb.Close()
	if n, err := rdb.Del(testCtx(t), redisstore.DefaultPrefix+"{"+task+"}:log").Result(); err != nil || n != 1 {
		t.Fatalf("DEL the task's stream: %d, %v", n, err)
	}
}
