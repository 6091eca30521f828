// page.jsx — the CopilotKit page of the browser test: CopilotChat talking
// AG-UI to examples/orchestrator, with the three lines of the package's
// README (the import, a2aNesting, and its two props). ?plain=1 leaves them
// out: CopilotKit as it is, what the test shows is wrong without them.
import { createRoot } from "react-dom/client";
import { HttpAgent } from "@ag-ui/client";
import { CopilotChat, CopilotKitProvider } from "@copilotkit/react-core/v2";
import "@copilotkit/react-core/v2/styles.css";
import "a2a-styles";
import { a2aNesting } from "../copilotkit.js";

const q = new URLSearchParams(location.search);
const nesting = a2aNesting({ tools: ["ask_colleague"] });
const plain = q.get("plain") === "1";
// The orchestrator's POST /ag-ui, served by the test on the page's origin.
const agent = new HttpAgent({ url: "/ag-ui/" + encodeURIComponent(q.get("backend") || "") });

function App() {
  return (
    <CopilotKitProvider
      agents__unsafe_dev_only={{ default: agent }}
      enableInspector={false}
      renderToolCalls={plain ? undefined : nesting.renderToolCalls}
    >
      <div style={{ height: "100vh" }}>
        <CopilotChat messageView={plain ? undefined : nesting.messageView} />
      </div>
    </CopilotKitProvider>
  );
}

window.addEventListener("error", (e) => (window.__errors = [...(window.__errors || []), String(e.message)]));
window.addEventListener("unhandledrejection", (e) => (window.__errors = [...(window.__errors || []), String(e.reason)]));
createRoot(document.getElementById("root")).render(<App />);
