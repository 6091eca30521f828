package frontend

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPendingResponses(t *testing.T) {
	now := time.Unix(1000, 0)
	p := NewPendingResponses(2, time.Minute)
	p.now = func() time.Time { return now }
	a := &SuspendedCall{Task: "t1", ToolCallID: "call-1", InterruptIDs: []string{"a2a:t1:0", "a2a:t1:1"}}
	b := &SuspendedCall{Task: "t2", ToolCallID: "call-2", InterruptIDs: []string{"a2a:t2:0"}}
	p.Hold("thread", a, nil, b)

	// One id of a call takes the whole call; a bad id takes nothing.
	if _, err := p.Respond("thread", "a2a:t1:0", "a2a:nope:0"); !errors.Is(err, ErrInterruptUnknown) {
		t.Fatalf("an unknown id among good ones: %v", err)
	}
	got, err := p.Respond("thread", "a2a:t1:1", "a2a:t1:0")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]SuspendedCall{*a}, got); diff != "" {
		t.Errorf("responded (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		key, id string
		want    error
	}{
		{"thread", "a2a:t1:0", ErrInterruptResponded},
		{"other", "a2a:t2:0", ErrInterruptUnknown},
	} {
		if _, err := p.Respond(c.key, c.id); !errors.Is(err, c.want) {
			t.Errorf("Respond(%s, %s) = %v, want %v", c.key, c.id, err, c.want)
		}
	}
	if code := ResumeErrorCode(fmt.Errorf("x: %w", ErrInterruptResponded)); code != "interrupt_answered" {
		t.Errorf("code %q", code)
	}
	// Past the TTL: expired, once; then a chat's next message is new.
	now = now.Add(2 * time.Minute)
	if _, err := p.Respond("thread", "a2a:t2:0"); !errors.Is(err, ErrInterruptExpired) {
		t.Errorf("expired response: %v", err)
	}
	p.Hold("chat", b)
	now = now.Add(2 * time.Minute)
	if _, err := p.Next("chat"); !errors.Is(err, ErrInterruptExpired) {
		t.Errorf("expired chat: %v", err)
	}
	if _, err := p.Next("chat"); !errors.Is(err, ErrInterruptUnknown) {
		t.Errorf("after the expiry was told: %v", err)
	}
	// At most 2 conversations: a third forgets the least recently used
	// one without a live call first.
	p.Hold("live", a)
	p.Hold("third", b)
	if len(p.convs) != 2 || p.convs["live"] == nil || p.convs["third"] == nil {
		t.Errorf("kept %v, want live and third", p.convs)
	}
	if got, err := p.Next("live"); err != nil || len(got) != 1 || got[0].Task != "t1" {
		t.Errorf("Next(live) = %v, %v", got, err)
	}
}
