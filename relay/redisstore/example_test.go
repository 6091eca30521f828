package redisstore_test

import (
	"context"
	"log"
	"net/http"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/relay"
	"github.com/tfrs/a2a-progress/relay/frontend"
	"github.com/tfrs/a2a-progress/relay/redisstore"
)

// An orchestrator worker publishes its own turn into Redis: no HTTP server.
// Any replica given the same Redis serves the turn to browsers.
func Example_worker() {
	ctx := context.Background()
	st, err := redisstore.New("redis://127.0.0.1:6379/0") // rediss://user:password@host:port/db for TLS and ACLs
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	h := relay.New(ctx, nil, relay.WithStore(st)) // publishes only
	defer h.Close()

	c, err := client.New(ctx, "http://127.0.0.1:9999")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := c.SendText(ctx, "summarise the incident")
	if err != nil {
		log.Fatal(err)
	}
	for _, err := range h.Attach(s) { // every op goes to Redis as it passes
		if err != nil {
			log.Print(err)
		}
	}
	out, err := s.Outcome()
	log.Println(out.State, err)
}

// A replica serves browsers from Redis; with a Follower it also follows the
// tasks nobody publishes — one replica per task, by a lease in Redis.
func Example_replica() {
	ctx := context.Background()
	st, err := redisstore.New("redis://127.0.0.1:6379/0", redisstore.WithPrefix("prod:"))
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	c, err := client.New(ctx, "http://127.0.0.1:9999")
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	h := relay.New(ctx, c, relay.WithStore(st), relay.WithAuthorizer(relay.AllowLoopback))
	defer h.Close()
	http.Handle("/progress/", http.StripPrefix("/progress", h)) // GET /progress/tasks/{id}/events
	// useChat, resumable on any replica: the chat map is in Redis.
	chat := frontend.Chat(h, c)
	http.Handle("/api/chat", chat)
	http.Handle("/api/chat/", chat)
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", nil))
}
