// The useChat page of react_test.go: a chat whose assistant messages show
// the orchestrator's ask_colleague tool parts with NestedCallPart. Bundled
// by esbuild (react_test.go) with the packages package-lock.json pins;
// nothing is loaded from a CDN.
//
// ?api= is the chat endpoint (the test proxies it to an orchestrator),
// ?chat= the chat id (the same id after a reload resumes the chat's turn).
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { NestedCallPart, isNestedCallPart } from "../usechat.js";

const params = new URLSearchParams(location.search);
const transport = new DefaultChatTransport({ api: params.get("api") || "/api/chat" });

function App() {
  const { messages, sendMessage, status, error } = useChat({ id: params.get("chat") || "chat-1", transport, resume: true });
  const [text, setText] = useState("");
  // What the test reads besides the DOM: the messages as useChat holds them.
  window.__chat = { messages, status, error: error ? String(error.message || error) : "" };
  const last = messages[messages.length - 1];
  return (
    <main>
      <h1>useChat</h1>
      <ol className="messages" aria-label="Conversation">
        {messages.map((m) => (
          <li key={m.id} className={"msg " + m.role} data-role={m.role}>
            {m.parts.map((part, i) =>
              part.type === "text" ? (
                <p key={i} className="msg-text">{part.text}</p>
              ) : isNestedCallPart(part) ? (
                <NestedCallPart key={part.toolCallId} part={part} canRespond={m === last} busy={status !== "ready"}
                  onRespond={(answer) => sendMessage({ text: answer })} />
              ) : null,
            )}
          </li>
        ))}
      </ol>
      <form className="send" onSubmit={(e) => {
        e.preventDefault();
        if (text.trim()) sendMessage({ text });
        setText("");
      }}>
        <label htmlFor="msg">Message</label>
        <textarea id="msg" value={text} onChange={(e) => setText(e.target.value)} rows={2} />
        <button type="submit" disabled={status === "streaming" || status === "submitted"}>Send</button>
      </form>
      <p className="chat-status" data-status={status}>{error ? "Error: " + error.message : status}</p>
    </main>
  );
}

createRoot(document.getElementById("root")).render(<App />);
