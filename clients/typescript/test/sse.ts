// Checks of the event-stream parser on wire text cut into awkward pieces.
// TestClientTypeScriptQuickstart (cmd/assistant) runs it after compiling;
// it exits non-zero on a failure.

import { parseEventStream, type RawEvent } from "../src/index.ts";

declare const process: { exitCode?: number };

/** body streams text as the given pieces (UTF-8). */
function body(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const p of pieces) {
        controller.enqueue(encoder.encode(p));
      }
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<RawEvent[]> {
  const out: RawEvent[] = [];
  for await (const ev of parseEventStream(stream)) {
    out.push(ev);
  }
  return out;
}

function same(got: unknown, want: unknown, what: string): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}:\n got  ${JSON.stringify(got)}\n want ${JSON.stringify(want)}`);
  }
}

const wire =
  "retry: 3000\r\nid: msg_1:1\r\nevent: meta\r\ndata: {\"a\":1}\r\n\r\n" +
  ": ping\n\n" +
  "id: msg_1:2\nevent: delta\ndata:{\"text\":\"退款\"}\nfoo: bar\n\n" +
  "data: first\rdata: second\r\r" +
  "id\nevent: x\n\n" +
  "event: done\ndata: {\"end\":true}";
const want: RawEvent[] = [
  { id: "msg_1:1", event: "meta", data: "{\"a\":1}", retry: 3000 },
  { id: "msg_1:2", event: "delta", data: "{\"text\":\"退款\"}" },
  { id: "msg_1:2", event: "message", data: "first\nsecond" },
];

async function main(): Promise<void> {
  same(await collect(body(wire)), want, "whole");
  // Every cut: a CRLF or a multi-byte character split over two reads.
  const bytes = new TextEncoder().encode(wire);
  for (let cut = 1; cut < bytes.length; cut++) {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, cut));
        controller.enqueue(bytes.slice(cut));
        controller.close();
      },
    });
    same(await collect(stream), want, `cut at byte ${cut}`);
  }
  same(await collect(body(...wire.split(""))), want, "one character at a time");
  console.log("sse: ok");
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
