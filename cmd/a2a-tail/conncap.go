package main

import (
	"container/list"
	"net"
	"net/http"
	"sync"
)

// connCap bounds the open connections of an http.Server (its ConnState
// hook): past max, each new connection closes the oldest idle one — a
// keep-alive connection between requests, or one that has not sent a
// request yet — so that connections someone leaves open cost at most max
// file descriptors and never keep a new request from being served. When
// every connection is busy (event streams), the newest one is closed. It
// holds one list element per open connection, at most max+1, and one map
// entry per connection it closed until the server saw it close.
type connCap struct {
	max int

	mu   sync.Mutex
	open int                        // open descriptors: not closed yet
	idle *list.List                 // of net.Conn, oldest first
	at   map[net.Conn]*list.Element // the idle ones
	shed map[net.Conn]bool          // closed here, StateClosed to come
}

func newConnCap(max int) *connCap {
	return &connCap{max: max, idle: list.New(), at: map[net.Conn]*list.Element{}, shed: map[net.Conn]bool{}}
}

// track is the http.Server's ConnState.
func (cc *connCap) track(c net.Conn, state http.ConnState) {
	var victim net.Conn
	cc.mu.Lock()
	switch state {
	case http.StateNew:
		cc.open++
		cc.at[c] = cc.idle.PushBack(c)
		if cc.open > cc.max {
			victim = cc.idle.Remove(cc.idle.Front()).(net.Conn)
			delete(cc.at, victim)
			cc.shed[victim] = true
			cc.open-- // its descriptor is closed below
		}
	case http.StateIdle:
		if cc.at[c] == nil {
			cc.at[c] = cc.idle.PushBack(c)
		}
	case http.StateActive:
		cc.unidleLocked(c)
	case http.StateClosed, http.StateHijacked:
		cc.unidleLocked(c)
		if cc.shed[c] {
			delete(cc.shed, c)
		} else {
			cc.open--
		}
	}
	cc.mu.Unlock()
	if victim != nil {
		_ = victim.Close() // the server's goroutine sees it and reports StateClosed
	}
}

func (cc *connCap) unidleLocked(c net.Conn) {
	if e := cc.at[c]; e != nil {
		cc.idle.Remove(e)
		delete(cc.at, c)
	}
}

// conns is the number of open connections.
func (cc *connCap) conns() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.open
}
