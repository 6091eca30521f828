package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/redis/go-redis/v9"

	"github.com/tfrs/a2a-progress/internal/testdep"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/redisstore"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testdep.Budget(90*time.Second))
	t.Cleanup(cancel)
	return ctx
}

func newStore(t *testing.T, r *redisServer, opts ...redisstore.Option) *redisstore.Store {
	t.Helper()
	s, err := redisstore.New(r.URL(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// rec is a record without its id, which Redis picks.
type rec struct {
	N  uint64
	Op string
}

func recs(rs []relay.Record) []rec {
	out := make([]rec, len(rs))
	for i, r := range rs {
		out[i] = rec{r.N, string(r.Op)}
	}
	return out
}

func TestAppendRead(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	s := newStore(t, r)
	ctx := testCtx(t)
	var ids []string
	for i := range 5 {
		got, err := s.Append(ctx, "t1", []byte(fmt.Sprintf(`{"i":%d}`, i)), i > 0, false)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, got.ID)
	}
	all, err := s.Read(ctx, "t1", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []rec{{1, `{"i":0}`}, {2, `{"i":1}`}, {3, `{"i":2}`}, {4, `{"i":3}`}, {5, `{"i":4}`}}
	if d := cmp.Diff(want, recs(all)); d != "" {
		t.Fatalf("read from the start (-want +got):\n%s", d)
	}
	after, err := s.Read(ctx, "t1", ids[2], 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want[3:], recs(after)); d != "" {
		t.Fatalf("read after the third (-want +got):\n%s", d)
	}
	// A blocking read wakes for the next append.
	got := make(chan []relay.Record, 1)
	go func() {
		rs, err := s.Read(ctx, "t1", ids[4], 30*time.Second)
		if err != nil {
			t.Error(err)
		}
		got <- rs
	}()
	// The read may start before or after the append: either way it gets it.
	if _, err := s.Append(ctx, "t1", []byte(`{"i":5}`), true, true); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]rec{{6, `{"i":5}`}}, recs(<-got)); d != "" {
		t.Fatalf("blocking read (-want +got):\n%s", d)
	}
	// A missing log reads as empty, and a wait that ends empty is no error.
	none, err := s.Read(ctx, "nothing", "", 10*time.Millisecond)
	if err != nil || len(none) != 0 {
		t.Fatalf("missing log: %v, %v", none, err)
	}
}

// The stream keeps to its caps in entries and in bytes; the numbering goes
// on, so a reader that fell behind the trim sees the gap.
func TestLogCaps(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	ctx := testCtx(t)
	for _, tc := range []struct {
		name             string
		maxOps, maxBytes int
		want             []uint64
	}{
		{"ops", 3, 1 << 20, []uint64{8, 9, 10}},
		{"bytes", 100, 250, []uint64{9, 10}}, // 100-byte ops: two fit in 250
		{"one op over the bytes", 100, 50, []uint64{10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, r, redisstore.WithLogCaps(tc.maxOps, tc.maxBytes), redisstore.WithPrefix(tc.name+":"))
			for i := range 10 {
				if _, err := s.Append(ctx, "t", []byte(strings.Repeat("x", 100)), i > 0, false); err != nil {
					t.Fatal(err)
				}
			}
			all, err := s.Read(ctx, "t", "", 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, rec := range all {
				got = append(got, rec.N)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("kept records (-want +got):\n%s", d)
			}
		})
	}
}

// A continuing publisher whose log vanished is told so, and a new one
// starts the numbering again.
func TestLogLost(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	s := newStore(t, r)
	ctx := testCtx(t)
	if _, err := s.Append(ctx, "t", []byte(`{}`), false, false); err != nil {
		t.Fatal(err)
	}
	evict(t, r, "t")
	if _, err := s.Append(ctx, "t", []byte(`{}`), true, false); !errors.Is(err, relay.ErrLogLost) {
		t.Fatalf("continuing append on a lost log: %v, want ErrLogLost", err)
	}
	got, err := s.Append(ctx, "t", []byte(`{"again":1}`), false, false)
	if err != nil || got.N != 1 {
		t.Fatalf("new append: %+v, %v; want record 1", got, err)
	}
}

// The stream expires after the settling op, sooner than a live one.
func TestExpiry(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	s := newStore(t, r, redisstore.WithTTLs(time.Hour, 2*time.Minute, time.Minute))
	ctx := testCtx(t)
	rdb := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.Port)})
	defer rdb.Close()
	if _, err := s.Append(ctx, "t", []byte(`{}`), false, false); err != nil {
		t.Fatal(err)
	}
	live := rdb.PTTL(ctx, redisstore.DefaultPrefix+"{t}:log").Val()
	if _, err := s.Append(ctx, "t", []byte(`{}`), true, true); err != nil {
		t.Fatal(err)
	}
	settled := rdb.PTTL(ctx, redisstore.DefaultPrefix+"{t}:log").Val()
	if live <= 59*time.Minute || settled > 2*time.Minute || settled <= 0 {
		t.Fatalf("TTL live %v (want ~1h), settled %v (want ≤ 2m)", live, settled)
	}
}

func TestLeaseAndChat(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	s := newStore(t, r)
	ctx := testCtx(t)
	steps := []struct {
		owner string
		want  bool
	}{{"a", true}, {"b", false}, {"a", true}}
	for _, st := range steps {
		got, err := s.Lease(ctx, "t", st.owner, time.Minute)
		if err != nil || got != st.want {
			t.Fatalf("Lease(%s) = %v, %v; want %v", st.owner, got, err, st.want)
		}
	}
	if leased, err := s.Leased(ctx, "t"); err != nil || !leased {
		t.Fatalf("Leased while a holds it: %v, %v", leased, err)
	}
	if err := s.Unlease(ctx, "t", "b"); err != nil { // not b's: no effect
		t.Fatal(err)
	}
	if got, _ := s.Lease(ctx, "t", "b", time.Minute); got {
		t.Fatal("b took a's lease after b's Unlease")
	}
	if err := s.Unlease(ctx, "t", "a"); err != nil {
		t.Fatal(err)
	}
	if leased, _ := s.Leased(ctx, "t"); leased {
		t.Fatal("Leased after a gave it back")
	}
	if got, _ := s.Lease(ctx, "t", "b", time.Minute); !got {
		t.Fatal("b did not get the lease a gave back")
	}

	if got, err := s.Chat(ctx, "c1"); err != nil || got != "" {
		t.Fatalf("unknown chat: %q, %v", got, err)
	}
	if err := s.SetChat(ctx, "c1", "task-9"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Chat(ctx, "c1"); err != nil || got != "task-9" {
		t.Fatalf("chat: %q, %v", got, err)
	}
}

// Redis down: each call says so with an error, none hangs.
func TestDown(t *testing.T) {
	t.Parallel()
	r := startRedis(t)
	s := newStore(t, r)
	r.Kill()
	ctx := testCtx(t)
	if _, err := s.Append(ctx, "t", []byte(`{}`), false, false); err == nil {
		t.Error("Append on a stopped Redis: no error")
	}
	if _, err := s.Read(ctx, "t", "", time.Second); err == nil {
		t.Error("Read on a stopped Redis: no error")
	}
	if err := s.Ping(ctx); err == nil {
		t.Error("Ping on a stopped Redis: no error")
	}
}

// A full Redis (maxmemory, noeviction) refuses an append whole: the error
// says so, and the log keeps every record before it, numbered without gaps.
func TestFullRedisRefusesAppends(t *testing.T) {
	t.Parallel()
	r := startRedis(t, "--maxmemory", "3mb", "--maxmemory-policy", "noeviction")
	s := newStore(t, r, redisstore.WithLogCaps(1<<20, 1<<30))
	ctx := testCtx(t)
	op := []byte(`"` + strings.Repeat("x", 8<<10) + `"`)
	var appended int
	var err error
	for appended = 0; appended < 10000; appended++ {
		if _, err = s.Append(ctx, "t", op, appended > 0, false); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "OOM") {
		t.Fatalf("after %d appends: %v, want Redis's OOM refusal", appended, err)
	}
	all, rerr := s.Read(ctx, "t", "", 0)
	for len(all) > 0 && rerr == nil {
		more, err := s.Read(ctx, "t", all[len(all)-1].ID, 0)
		if err != nil || len(more) == 0 {
			rerr = err
			break
		}
		all = append(all, more...)
	}
	if rerr != nil {
		t.Fatal(rerr)
	}
	for i, rec := range all {
		if rec.N != uint64(i+1) {
			t.Fatalf("record %d numbered %d", i, rec.N)
		}
	}
	if len(all) != appended {
		t.Fatalf("%d records after %d appends", len(all), appended)
	}
}
