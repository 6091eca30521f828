package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"golang.org/x/term"

	"github.com/tfrs/a2a-progress/client"
	"github.com/tfrs/a2a-progress/envelope"
	"github.com/tfrs/a2a-progress/internal/termtext"
	"github.com/tfrs/a2a-progress/merge"
	"github.com/tfrs/a2a-progress/schema"
	"github.com/tfrs/a2a-progress/terminal"
)

// liveSink is the text output on a terminal: a frame that is redrawn in
// place, like a front end's tool-call detail area. A header names the task
// (as soon as the stream knows it) and its state; each tool call holds one
// line with its status (a spinner and the elapsed time while running) and
// the tail of its output beneath; thinking is folded to one line; error
// blocks are highlighted. The frame is drawn from the stream's own merged
// view (view: client.Stream.View), read when a frame is drawn.
//
// The view owns the terminal while it runs: a notice (a reconnect, a cap,
// a warning, a log line) is written through notice, which writes it where
// the frame starts and redraws the frame under it — never a line torn by
// the next redraw. The live frame is at most the screen's height less one
// (its oldest lines under the header scroll out), so a redraw never reaches
// into the scrollback, and nothing of it scrolls there while it runs; only
// the final frame, written once and whole, may. A redraw overwrites the
// frame's lines in place (erase to the end of each line) and erases below
// only after the first line: never an erase from the screen's top-left
// corner, which tmux (scroll-on-clear) and other terminals turn into a
// copy of the screen in the scrollback. When the terminal is resized, the
// frame is drawn again from the top of the screen, since the lines already
// drawn may have been re-wrapped by the terminal. Once finish has written
// the final frame, notices (the next command to run) go under it, and
// nothing is redrawn.
type liveSink struct {
	w          io.Writer
	notices    io.Writer // stderr: where notice writes
	color      bool
	timestamps bool
	tail       int // lines of tool output under each call (--lines)
	now        func() time.Time
	size       func() (w, h int)
	view       func() schema.View // the stream's, safe from any goroutine

	mu      sync.Mutex
	task    a2a.TaskID
	state   a2a.TaskState
	started map[string]time.Time // tool key → first seen running
	ended   map[string]time.Time // tool key → left running
	kept    []string             // the last maxKeptNotices notices, redrawn after a resize
	lines   int                  // lines of the frame on screen
	width   int                  // the terminal's size when the frame was drawn
	height  int
	tick    int
	dirty   bool      // the view changed since the last frame
	drawn   time.Time // wall time of the last frame
	err     error     // first write error
	final   bool      // finish wrote the final frame: nothing is redrawn
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// defaultTailLines is how many lines of a tool call's output the live view
// keeps under it unless --lines says otherwise; text blocks are folded to
// the same number of lines.
const defaultTailLines = 3

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newLiveSink(w io.Writer, view func() schema.View, color, timestamps bool, now func() time.Time, size func() (int, int)) *liveSink {
	s := &liveSink{w: w, notices: io.Discard, color: color, timestamps: timestamps, tail: defaultTailLines,
		now: now, size: size, view: view,
		started: map[string]time.Time{}, ended: map[string]time.Time{},
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go s.animate(100 * time.Millisecond)
	return s
}

// termSize is the size of the terminal on stdout (80×24 when unknown).
func (a *app) termSize() (int, int) {
	if f, ok := a.stdout.(*os.File); ok {
		if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 && h > 0 {
			return w, h
		}
	}
	return 80, 24
}

// animate redraws the frame for the spinner and the elapsed times.
func (s *liveSink) animate(every time.Duration) {
	defer close(s.stopped)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.tick++
			if s.dirty || s.hasRunning() || s.resized() {
				s.draw(false)
			}
			s.mu.Unlock()
		}
	}
}

func (s *liveSink) hasRunning() bool {
	for k := range s.started {
		if _, ok := s.ended[k]; !ok {
			return true
		}
	}
	return false
}

// resized reports whether the terminal's size changed since the frame was
// drawn; the caller holds s.mu.
func (s *liveSink) resized() bool {
	if s.width == 0 {
		return false
	}
	w, h := s.size()
	return w != s.width || h != s.height
}

// notice writes text (one or more lines) above the frame: the frame is
// cleared, text written to the notices writer, and the frame redrawn under
// it. Safe for concurrent use (the client's logger calls it).
func (s *liveSink) notice(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if s.err != nil || s.final {
		_, _ = io.WriteString(s.notices, text)
		return
	}
	s.writeNotice(text, s.lines > 0)
	if len(text) > maxNoticeBytes {
		text = text[:maxNoticeBytes] + "…\n"
	}
	s.kept = append(s.kept, text)
	if len(s.kept) > maxKeptNotices {
		s.kept = s.kept[1:]
	}
	if s.task != "" || s.dirty || !s.drawn.IsZero() { // a frame is (or is due) on screen
		s.draw(false)
	}
}

// maxKeptNotices and maxNoticeBytes bound what the view keeps of the
// notices to write them again over a cleared screen (after a resize).
const (
	maxKeptNotices = 3
	maxNoticeBytes = 1024
)

// writeNotice writes text over the frame (from the frame's first line when
// over is set, else at the cursor), erasing each row before writing on it,
// and everything below once a line is written: the old frame's lines go,
// without an erase from the screen's corner. The frame is redrawn by the
// caller. The caller holds s.mu.
func (s *liveSink) writeNotice(text string, over bool) {
	if over {
		_, s.err = fmt.Fprintf(s.w, "\x1b[%dF", s.lines)
		s.lines = 0
	}
	width, _ := s.size()
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if s.err != nil {
			return
		}
		// Erase every row the line will take (it may wrap), moving down
		// with CSI B, which never scrolls, and back.
		erase := "\x1b[2K"
		if rows := (termtext.Columns(l) + width - 1) / max(width, 1); rows > 1 {
			erase += strings.Repeat("\x1b[B\x1b[2K", rows-1) + fmt.Sprintf("\x1b[%dA", rows-1)
		}
		_, s.err = io.WriteString(s.w, erase)
		_, _ = io.WriteString(s.notices, l+"\n")
		if i == 0 && s.err == nil {
			_, s.err = io.WriteString(s.w, "\x1b[J")
		}
	}
}

func (s *liveSink) update(u client.Update) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u.State != "" && u.State != s.state {
		s.state, s.dirty = u.State, true
	}
	if u.TaskID != "" && s.task == "" {
		s.task, s.dirty = u.TaskID, true
	}
	if u.Type != client.UpdateProgress || u.Change.Effect != merge.Applied {
		return s.err
	}
	if t := u.Change.Tool; t != nil {
		// A call first seen settled (backfilled after a cut, or a settled
		// task's history) ran for a time nobody saw: it shows none, not
		// 0s.
		now := s.now()
		if _, ok := s.started[t.Key]; !ok && t.Status == schema.ToolRunning {
			s.started[t.Key] = now
		}
		if t.Status != schema.ToolRunning {
			if _, ok := s.ended[t.Key]; !ok {
				s.ended[t.Key] = now
			}
		}
	}
	// A frame costs O(view): on a fast stream, draw at most every
	// minFrameInterval and let the ticker pick up the rest.
	if time.Since(s.drawn) >= minFrameInterval {
		s.draw(false)
	} else {
		s.dirty = true
	}
	return s.err
}

// minFrameInterval bounds how often the live view redraws on updates.
const minFrameInterval = 50 * time.Millisecond

// close stops the ticker and waits for it. It may be called more than
// once, and must be: by finish, and by whoever gives up on the stream.
func (s *liveSink) close() {
	s.once.Do(func() { close(s.stop) })
	<-s.stopped
}

func (s *liveSink) finish(v schema.View, out terminal.Outcome, err error) error {
	s.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if out.State != "" {
		s.state = out.State
	}
	if s.task == "" {
		s.task = out.TaskID
	}
	now := s.now()
	for _, t := range v.ToolCalls {
		if _, ok := s.ended[t.Key]; !ok && t.Status != schema.ToolRunning {
			s.ended[t.Key] = now
		}
	}
	s.writeFrame(s.frame(v, true), true)
	s.final = true
	// The verdict is written whole, after the frame: nothing is redrawn
	// once it is out, and the reply is the one thing that must never be
	// clipped to the terminal's width.
	s.lines = 0 // the final frame stays: a later notice goes under it
	if s.err == nil {
		w := s.w
		if isErrorLine(out, err) {
			w = s.notices
		}
		_, s.err = io.WriteString(w, verdictLine(out, err, s.color))
	}
	return s.err
}

// draw renders the current view; the caller holds s.mu.
func (s *liveSink) draw(final bool) {
	s.writeFrame(s.frame(s.view(), final), final)
	s.dirty, s.drawn = false, time.Now()
}

// writeFrame replaces the frame on screen with f. While live, only the last
// lines that fit the terminal are shown (the cursor cannot move above the
// screen); the final frame is written whole.
func (s *liveSink) writeFrame(f string, final bool) {
	if s.err != nil {
		return
	}
	width, height := s.size()
	var lines []string
	if f != "" {
		lines = strings.Split(strings.TrimSuffix(f, "\n"), "\n")
	}
	if !final && len(lines) > height-1 {
		if height >= 3 {
			// The header stays; the oldest lines under it scroll out.
			lines = append(lines[:1:1], lines[len(lines)-(height-2):]...)
		} else {
			lines = lines[len(lines)-max(height-1, 1):]
		}
	}
	var b strings.Builder
	switch {
	case s.width != 0 && (width != s.width || height != s.height):
		// A resized terminal may have re-wrapped the lines drawn: how
		// many rows the old frame takes is unknown, so start over from
		// the top of the screen, with the last notices above the frame.
		if _, s.err = io.WriteString(s.w, "\x1b[H"); s.err != nil {
			return
		}
		s.lines = 0
		for _, n := range s.kept {
			s.writeNotice(n, false)
		}
	case s.lines > 0:
		fmt.Fprintf(&b, "\x1b[%dF", s.lines) // to the start of the frame
	}
	s.width, s.height = width, height
	// Each line overwrites the old frame's and erases the rest of its
	// row; what is left of a taller old frame is erased below the new
	// one, where the cursor is not in the screen's top-left corner.
	for _, l := range lines {
		b.WriteString(termtext.Clip(l, width))
		b.WriteString("\x1b[K\n")
	}
	b.WriteString("\x1b[J")
	s.lines = len(lines)
	_, s.err = io.WriteString(s.w, b.String())
}

// frame renders a view. Lines are built plain and painted last, so that
// termtext.Clip counts visible columns only.
func (s *liveSink) frame(v schema.View, final bool) string {
	// The header stays in the final frame: the task id is what a later
	// command (follow, respond, cancel) needs. It counts the whole view.
	return s.header(v) + "\n" + s.body(v)
}

// body is the frame under its header: the view's blocks in order, each
// tool call on its lines with the calls nested under it (PROTOCOL.md §10).
func (s *liveSink) body(v schema.View) string {
	v, kids := nestSplit(v)
	tools := make(map[string]schema.ToolCall, len(v.ToolCalls))
	for _, t := range v.ToolCalls {
		tools[t.Key] = t
	}
	shown := make(map[string]bool, len(tools))
	var b strings.Builder
	for _, blk := range v.Blocks {
		if key := blk.ToolKey(); key != "" {
			if t, ok := tools[key]; ok && (blk.Kind == envelope.KindToolCall || blk.Kind == envelope.KindToolOutputAppend) {
				if !shown[key] {
					shown[key] = true
					s.toolLines(&b, t)
					s.nestedLines(&b, kids, key)
				}
				continue
			}
		}
		switch p := blk.Payload.(type) {
		case envelope.Thinking:
			b.WriteString(paint(s.color, dim, "💭 "+oneLine(p.Text, 200)) + "\n")
		case envelope.Text:
			for i, l := range strings.Split(strings.TrimRight(termtext.Printable(p.Text), "\n"), "\n") {
				if i == s.tail {
					b.WriteString("   …\n")
					break
				}
				prefix := "   "
				if i == 0 {
					prefix = "·  "
					if blk.Source == schema.SourceFallback {
						prefix = "~  "
					}
				}
				b.WriteString(prefix + l + "\n")
			}
		case envelope.ErrorPayload:
			b.WriteString(paint(s.color, red, "✗  error: "+oneLine(p.Message, 200)) + "\n")
		}
	}
	// Tool calls whose blocks were all dropped by caps still have a line.
	for _, t := range v.ToolCalls {
		if !shown[t.Key] {
			s.toolLines(&b, t)
			s.nestedLines(&b, kids, t.Key)
		}
	}
	return b.String()
}

// header is the first line of the live frame: the task, its state and the
// counters.
func (s *liveSink) header(v schema.View) string {
	c := v.Counters
	status := stateWord(s.state)
	if s.task != "" {
		status = "task " + termtext.Printable(string(s.task)) + " · " + status
	}
	status += " · " + plural(c.Applied, "block")
	if c.Late > 0 {
		status += fmt.Sprintf(" · %d late", c.Late)
	}
	if c.Duplicates > 0 {
		status += " · " + plural(c.Duplicates, "duplicate")
	}
	if c.Gaps > 0 {
		status += " · " + plural(c.Gaps, "gap")
	}
	return paint(s.color, dim, status)
}

// plural is "1 block", "2 blocks".
func plural[N int | int64](n N, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func (s *liveSink) toolLines(b *strings.Builder, t schema.ToolCall) {
	icon := map[schema.ToolStatus]string{schema.ToolDone: "✓", schema.ToolAborted: "✗", schema.ToolUnfinished: "⚠"}[t.Status]
	if icon == "" {
		icon = spinner[s.tick%len(spinner)]
	}
	line := fmt.Sprintf("%s  %s", icon, termtext.Printable(t.Tool))
	if t.Key != "" && t.Key != t.Tool {
		line += " [" + termtext.Printable(t.Key) + "]"
	}
	line = paint(s.color, toolColor(t.Status), line) + " " + string(t.Status)
	if start, ok := s.started[t.Key]; ok {
		end, done := s.ended[t.Key]
		if !done {
			end = s.now()
		}
		line += " " + paint(s.color, dim, end.Sub(start).Round(100*time.Millisecond).String())
	}
	b.WriteString(line + "\n")
	out := strings.TrimRight(termtext.Printable(t.Output), "\n")
	if out == "" {
		return
	}
	ls := strings.Split(out, "\n")
	if len(ls) > s.tail {
		ls = ls[len(ls)-s.tail:]
	}
	for _, l := range ls {
		b.WriteString(paint(s.color, dim, "   │ ") + l + "\n")
	}
}

func stateWord(s a2a.TaskState) string {
	if s == "" {
		return "connecting"
	}
	// Spelt as the verdict is: input-required, auth-required.
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(string(s), "TASK_STATE_")), "_", "-")
}
