// types.tsx — type-checked by react_test.go (tsc --strict): the package's
// .d.ts files as an app uses them, with useChat's own part types.
import { useChat } from "@ai-sdk/react";
import { NestedCallView, ResponseBox, isSubagentView, type SubagentView } from "../view.js";
import { NestedCallPart, isNestedCallPart, nestedCallOf, NESTED_TOOL } from "../usechat.js";

export function Chat() {
  const { messages, sendMessage, status } = useChat();
  return (
    <div>
      {messages.map((m) =>
        m.parts.map((part, i) =>
          isNestedCallPart(part) ? (
            <NestedCallPart key={part.toolCallId} part={part} canRespond={m === messages.at(-1)} busy={status !== "ready"}
              onRespond={(answer) => sendMessage({ text: answer })} />
          ) : (
            <span key={i}>{part.type}</span>
          ),
        ),
      )}
    </div>
  );
}

export function One(props: { output: unknown }) {
  const v = props.output;
  if (!isSubagentView(v)) return null;
  const items: number = v.items.length;
  const view: SubagentView = v;
  return (
    <>
      <NestedCallView view={view} phase="ended" title={`${items} items`} tailLines={3} className="mine"
        onRespond={async (answer: string) => { void answer; }} />
      <ResponseBox question={v.interrupt?.question ?? ""} onRespond={() => {}} disabled />
      {/* @ts-expect-error: a phase is running, ended or failed */}
      <NestedCallView view={null} phase="done" />
    </>
  );
}

export const tool: string = NESTED_TOOL;
export const phase = nestedCallOf({ type: "tool-ask_colleague", toolCallId: "c", state: "output-available", output: {} }).phase;
