// Checks a UI message stream against the AI SDK's own chunk schema
// (ai's uiMessageChunkSchema, validated with @ai-sdk/provider-utils'
// safeValidateTypes, as the SDK's readers do) and prints what it read, as
// one JSON object on stdout.
//
//   node aisdk-chunks.mjs '<JSON array of configs>'
//
// It reads each config's stream in turn and prints a JSON array of what it
// read. config: { url, method ("GET" or "POST"), body (for POST) }
// prints: { status, chunks: [the chunks, parsed], invalid: [{chunk, error}], done: saw [DONE] }
import { uiMessageChunkSchema } from "ai";
import { safeValidateTypes } from "@ai-sdk/provider-utils";
import { main } from "./harness.mjs";

// runCase reads one config's stream.
export async function runCase(cfg) {
  const res = await fetch(cfg.url, {
    method: cfg.method ?? "GET",
    headers: cfg.body ? { "Content-Type": "application/json" } : {},
    body: cfg.body ? JSON.stringify(cfg.body) : undefined,
  });
  const out = { status: res.status, chunks: [], invalid: [], done: false };
  const text = await res.text();
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "") continue;
    if (data === "[DONE]") {
      out.done = true;
      continue;
    }
    let chunk;
    try {
      chunk = JSON.parse(data);
    } catch (err) {
      out.invalid.push({ chunk: data, error: String(err) });
      continue;
    }
    const r = await safeValidateTypes({ value: chunk, schema: uiMessageChunkSchema });
    if (!r.success) out.invalid.push({ chunk, error: String(r.error?.message ?? r.error) });
    out.chunks.push(chunk);
  }
  return out;
}

await main(import.meta.url, runCase);
