// Quick start of the TypeScript client: with a platform key, create a key
// for a tenant; as that tenant, create a knowledge base, upload a FAQ, wait
// for its index job, open a session and ask a covered question, as JSON and
// streamed (then resume the stream from its first event).
//
//   ASSISTANT_URL=http://127.0.0.1:8080 ASSISTANT_API_KEY=$(cat .data/default-api-key) \
//     node --experimental-strip-types clients/typescript/examples/quickstart.ts
//
// (Node.js >= 22.6 runs it as it is, with openapi-fetch installed; make test
// compiles it with tsc and runs it against a test server.) It exits non-zero
// when a step fails or an answer does not cite the FAQ.

import {
  ApiError,
  createAssistantClient,
  streamMessage,
  uploadDocument,
  type ChatReply,
  type ChatStreamEvent,
} from "../src/index.ts";

// Node's process, declared here so the example needs no @types/node.
declare const process: { env: Record<string, string | undefined>; exitCode?: number };

const baseUrl = `${process.env["ASSISTANT_URL"] ?? "http://127.0.0.1:8080"}/api/v1`;
const rootKey = process.env["ASSISTANT_API_KEY"] ?? "";
const tenant = process.env["ASSISTANT_TENANT"] ?? "quickstart";

const faq = `Refunds: refunds reach your original payment method within three working days after approval.
Shipping: orders ship from our warehouse within two working days; delivery takes three to five days.
Warranty: every router carries a two-year warranty covering hardware faults.
`;
const question = "How long do refunds take to reach my payment method?";

/** check stops the example when a condition fails. */
function check(ok: boolean, what: string): asserts ok {
  if (!ok) {
    throw new Error(`quickstart: ${what}`);
  }
}

/** citesFaq checks that a reply answers from the FAQ and cites it. */
function citesFaq(reply: ChatReply, how: string): void {
  check(!reply.shouldTransfer, `${how}: handed over (${reply.transferCode ?? "?"}): ${reply.answer}`);
  check(reply.answer.includes("three working days"), `${how}: the answer does not quote the FAQ: ${reply.answer}`);
  check(reply.sources[0]?.documentName === "faq.txt", `${how}: the answer does not cite faq.txt`);
}

async function main(): Promise<void> {
  check(rootKey !== "", "set ASSISTANT_API_KEY to a platform key");
  const root = createAssistantClient({ baseUrl, apiKey: rootKey });

  // A key bound to the tenant (created with it), with both scopes. The
  // Idempotency-Key makes a retry of this call answer the same key.
  const created = await root.POST("/admin/api-keys", {
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { name: "quickstart", scopes: ["admin", "chat"], tenantId: tenant },
  });
  if (!created.data) {
    throw new ApiError(created.response.status, created.error, "createApiKey");
  }
  console.log(`key ${created.data.apiKey.id} for tenant ${tenant}`);

  const client = createAssistantClient({ baseUrl, apiKey: created.data.secret });
  const header = { "X-Tenant-Id": tenant };

  const kb = await client.POST("/admin/kb/knowledge-bases", { params: { header }, body: { name: "FAQ" } });
  if (!kb.data) {
    throw new ApiError(kb.response.status, kb.error, "createKnowledgeBase");
  }
  const accepted = await uploadDocument(client, {
    tenantId: tenant,
    kbId: kb.data.id,
    file: new Blob([faq], { type: "text/plain" }),
    fileName: "faq.txt",
    idempotencyKey: crypto.randomUUID(),
  });
  let job = accepted.job;
  for (let i = 0; job.state !== "succeeded" && job.state !== "failed"; i++) {
    check(i < 600, `index job ${job.id} still ${job.state}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const r = await client.GET("/admin/kb/index/jobs/{jobId}", { params: { path: { jobId: job.id }, header } });
    if (!r.data) {
      throw new ApiError(r.response.status, r.error, "getIndexJob");
    }
    job = r.data;
  }
  check(job.state === "succeeded", `index job ${job.id} failed: ${job.reason ?? ""}`);
  console.log(`indexed faq.txt (${job.progress.done}/${job.progress.total})`);

  // The request's fields with defaults are optional: {} is a whole session.
  const session = await client.POST("/chat/sessions", { params: { header }, body: {} });
  if (!session.data) {
    throw new ApiError(session.response.status, session.error, "createChatSession");
  }
  const sessionId = session.data.id;

  // The JSON reply is a ChatReply (the client's media type is application/json).
  const reply = await client.POST("/chat/sessions/{sessionId}/messages", {
    params: { path: { sessionId }, header },
    body: { message: question },
  });
  if (!reply.data) {
    throw new ApiError(reply.response.status, reply.error, "postChatMessage");
  }
  citesFaq(reply.data, "JSON reply");
  console.log(`json: ${reply.data.answer}`);

  // The same question, streamed: meta, deltas, sources, done.
  const events: ChatStreamEvent[] = [];
  let shown = "";
  for await (const ev of streamMessage(client, { tenantId: tenant, sessionId, body: { message: question } })) {
    events.push(ev);
    switch (ev.event) {
      case "delta":
        shown = ev.data.reset ? ev.data.text : shown + ev.data.text;
        break;
      case "error":
        throw new Error(`stream failed: ${ev.data.code}: ${ev.data.detail}`);
    }
  }
  const first = events[0];
  const done = events.at(-1);
  check(first?.event === "meta", "the stream does not open with meta");
  check(done?.event === "done", "the stream does not end with done");
  citesFaq(done.data, "streamed reply");
  check(shown === done.data.answer, "the deltas do not add up to the answer");
  console.log(`stream: ${events.map((ev) => ev.event).join(" ")}`);
  console.log(`streamed: ${shown}`);

  // A stream that broke resumes from the last id received: the rest of the
  // same reply is replayed, and no new message is created.
  const rest: ChatStreamEvent[] = [];
  for await (const ev of streamMessage(client, { tenantId: tenant, sessionId, body: { message: question }, lastEventId: first.id })) {
    rest.push(ev);
  }
  const replayed = rest.at(-1);
  check(rest.length === events.length - 1, `resumed ${rest.length} events, want ${events.length - 1}`);
  check(replayed?.event === "done" && replayed.data.messageId === done.data.messageId, "the resumed stream is another reply");
  console.log(`resumed after ${first.id}: ${rest.length} events, same reply ${done.data.messageId}`);
  console.log("quickstart: ok");
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
