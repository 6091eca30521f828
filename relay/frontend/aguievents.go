package frontend

import "encoding/json"

// The caller's own AG-UI events: an orchestrator that serves an AG-UI run
// (AGUIRun) writes its RUN_STARTED, its text, its tool calls and its end
// itself. These constructors name every field as AG-UI 1.0 does and leave
// out the optional ones that are empty (the client refuses a null where a
// field is optional), so the events pass @ag-ui/client's verifier.

// AGUIEvent is one AG-UI event as its JSON object. It is a map so that an
// event can carry what AG-UI adds later (set a key before writing it);
// [AGUIRun.Emit] takes it as it is.
type AGUIEvent = map[string]any

// AGUIInterrupt is one interrupt of a RUN_FINISHED outcome interrupt: what
// the run waits for. ID is what the next run's RunAgentInput.resume
// responds to.
type AGUIInterrupt struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
	// Message is the question, for a person.
	Message string `json:"message,omitempty"`
	// ToolCallID is the call the interrupt is about, SubagentRunID the
	// sub-agent that asked (a nested call's).
	ToolCallID    string `json:"toolCallId,omitempty"`
	SubagentRunID string `json:"subagentRunId,omitempty"`
}

// AGUIOutcome is how a run ended: OutcomeSuccess or OutcomeInterrupt (AG-UI
// also has "cancelled", for a run its client aborted).
type AGUIOutcome struct {
	Type       string          `json:"type"`
	Interrupts []AGUIInterrupt `json:"interrupts,omitempty"`
}

// OutcomeSuccess is the outcome of a run that did what it was asked.
func OutcomeSuccess() AGUIOutcome { return AGUIOutcome{Type: "success"} }

// OutcomeInterrupt is the outcome of a run that waits for responses to
// interrupts (at least one).
func OutcomeInterrupt(interrupts ...AGUIInterrupt) AGUIOutcome {
	return AGUIOutcome{Type: "interrupt", Interrupts: interrupts}
}

// RunStarted is RUN_STARTED, the run's first event.
func RunStarted(threadID, runID string) AGUIEvent {
	return AGUIEvent{"type": "RUN_STARTED", "threadId": threadID, "runId": runID}
}

// RunFinished is RUN_FINISHED with its outcome, the run's last event.
func RunFinished(threadID, runID string, outcome AGUIOutcome) AGUIEvent {
	return AGUIEvent{"type": "RUN_FINISHED", "threadId": threadID, "runId": runID, "outcome": outcome}
}

// RunError is RUN_ERROR: the run failed; code is for programs ("" none).
func RunError(message, code string) AGUIEvent {
	ev := AGUIEvent{"type": "RUN_ERROR", "message": message}
	if code != "" {
		ev["code"] = code
	}
	return ev
}

// TextMessageStart opens the assistant's text message id.
func TextMessageStart(id string) AGUIEvent {
	return AGUIEvent{"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}
}

// TextMessageContent adds delta (not empty: AG-UI refuses an empty delta)
// to the text message id.
func TextMessageContent(id, delta string) AGUIEvent {
	return AGUIEvent{"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta}
}

// TextMessageEnd closes the text message id.
func TextMessageEnd(id string) AGUIEvent {
	return AGUIEvent{"type": "TEXT_MESSAGE_END", "messageId": id}
}

// ToolCallStart opens the tool call id of tool name; parentMessageID, when
// set, is the assistant message that carries it.
func ToolCallStart(id, name, parentMessageID string) AGUIEvent {
	ev := AGUIEvent{"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name}
	if parentMessageID != "" {
		ev["parentMessageId"] = parentMessageID
	}
	return ev
}

// ToolCallArgs adds delta to the JSON arguments of the tool call id.
func ToolCallArgs(id, delta string) AGUIEvent {
	return AGUIEvent{"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": delta}
}

// ToolCallEnd closes the arguments of the tool call id.
func ToolCallEnd(id string) AGUIEvent {
	return AGUIEvent{"type": "TOOL_CALL_END", "toolCallId": id}
}

// ToolCallResult is the whole result of the tool call toolCallID, a tool
// message of its own (messageID).
func ToolCallResult(messageID, toolCallID, content string) AGUIEvent {
	return AGUIEvent{"type": "TOOL_CALL_RESULT", "messageId": messageID, "toolCallId": toolCallID, "role": "tool", "content": content}
}

// RunAgentInput is what an AG-UI client POSTs to start a run (@ag-ui/core
// 1.0's RunAgentInput). Fields the relay does not read are kept raw.
type RunAgentInput struct {
	ThreadID    string `json:"threadId"`
	RunID       string `json:"runId"`
	ParentRunID string `json:"parentRunId,omitempty"`
	// Messages are the conversation so far, in order.
	Messages []AGUIMessage `json:"messages"`
	// Resume responds to the interrupts that ended the thread's last run.
	Resume         []AGUIResume    `json:"resume,omitempty"`
	State          json.RawMessage `json:"state,omitempty"`
	Tools          json.RawMessage `json:"tools,omitempty"`
	Context        json.RawMessage `json:"context,omitempty"`
	ForwardedProps json.RawMessage `json:"forwardedProps,omitempty"`
}

// LastUserText is the text of the input's last user message ("" when
// there is none).
func (in *RunAgentInput) LastUserText() string {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == "user" {
			return in.Messages[i].Text()
		}
	}
	return ""
}

// AGUIMessage is one message of a RunAgentInput. Content is a string or a
// list of parts (text, image, …); Raw is the message as it came, kept to
// restate it.
type AGUIMessage struct {
	ID      string
	Role    string
	Content json.RawMessage
	Raw     json.RawMessage
}

// UnmarshalJSON reads a message and keeps it raw.
func (m *AGUIMessage) UnmarshalJSON(b []byte) error {
	var f struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*m = AGUIMessage{ID: f.ID, Role: f.Role, Content: f.Content, Raw: append(json.RawMessage(nil), b...)}
	return nil
}

// MarshalJSON writes the message as it came (Raw), else its fields.
func (m AGUIMessage) MarshalJSON() ([]byte, error) {
	if len(m.Raw) > 0 {
		return m.Raw, nil
	}
	f := map[string]any{"id": m.ID, "role": m.Role}
	if len(m.Content) > 0 {
		f["content"] = m.Content
	}
	return json.Marshal(f)
}

// Text is the message's text: its string content, or its text parts one
// per line.
func (m AGUIMessage) Text() string { return textOf(m.Content) }

// AGUIResume is one entry of RunAgentInput.resume: the user's response to
// an interrupt.
type AGUIResume struct {
	InterruptID string `json:"interruptId"`
	// Status is "resolved" (responded to) or "cancelled" (abandoned).
	Status  string          `json:"status"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Text is the response as text: a string payload, or its text parts.
func (r AGUIResume) Text() string { return textOf(r.Payload) }

// rawMessages are the messages as they came.
func rawMessages(msgs []AGUIMessage) []json.RawMessage {
	if msgs == nil {
		return nil
	}
	out := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		out[i], _ = m.MarshalJSON()
	}
	return out
}
