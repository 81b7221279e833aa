// Server-sent events: a parser of text/event-stream and the three typed
// streams of the contract (a streamed chat reply, a streamed RAG-lab run,
// a session's live stages).

import { ApiError, isProblem, type AssistantClient, type ChatMessageRequest, type RagExperimentRequest, type Schemas } from "./client.ts";

/** One event of a streamed reply (`meta`, `thought`, `delta`, `sources`, then `done` or `error`). */
export type ChatStreamEvent = Schemas["ChatStreamEvent"];
/** One event of a streamed RAG-lab run. */
export type RagStreamEvent = Schemas["RagStreamEvent"];
/** One event of a session watch (`ready`, then `stage`s). */
export type SessionWatchEvent = Schemas["SessionWatchEvent"];

/** One server-sent event as it came over the wire. */
export interface RawEvent {
  /** The last `id:` received (it carries over to later events, as in EventSource). */
  id: string;
  /** The `event:` name; `message` when the event named none. */
  event: string;
  /** The `data:` lines, joined with newlines. */
  data: string;
  /** The `retry:` the event carried (milliseconds to wait before reconnecting), if any. */
  retry?: number;
}

/**
 * parseEventStream reads server-sent events from a body, following the
 * WHATWG rules: lines end with LF, CRLF or CR; a blank line ends an event;
 * lines starting with `:` are comments (the service's pings); a field
 * without a colon has an empty value; one space after the colon is dropped.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let lastId = "";
  let name = "";
  let data: string[] = [];
  let retry: number | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const end = buffer.search(/[\r\n]/);
        // A CR at the end of what arrived may be the first half of a CRLF.
        if (end < 0 || (end === buffer.length - 1 && buffer[end] === "\r" && !done)) {
          break;
        }
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer.startsWith("\r\n", end) ? end + 2 : end + 1);
        if (line === "") {
          if (data.length > 0) {
            const event: RawEvent = { id: lastId, event: name || "message", data: data.join("\n") };
            if (retry !== undefined) {
              event.retry = retry;
            }
            yield event;
          }
          name = "";
          data = [];
          retry = undefined;
          continue;
        }
        if (line.startsWith(":")) {
          continue;
        }
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) {
          value = value.slice(1);
        }
        switch (field) {
          case "event":
            name = value;
            break;
          case "data":
            data.push(value);
            break;
          case "id":
            if (!value.includes("\0")) {
              lastId = value;
            }
            break;
          case "retry":
            if (/^[0-9]+$/.test(value)) {
              retry = Number(value);
            }
            break;
        }
      }
      if (done) {
        // An event not ended by a blank line is dropped, as EventSource does.
        return;
      }
    }
  } finally {
    // Stops the request when the caller breaks out of its loop early.
    await reader.cancel().catch(() => {});
  }
}

// The event names each stream type knows: an event of another name is
// skipped (the contract asks clients to ignore names they do not know). The
// `satisfies` and the Unlisted checks keep the lists equal to the contract's
// unions: a name added or removed there fails the compile in make test.
const chatNames = ["meta", "thought", "delta", "sources", "done", "error"] as const satisfies readonly ChatStreamEvent["event"][];
const ragNames = ["meta", "sources", "thought", "delta", "done", "error"] as const satisfies readonly RagStreamEvent["event"][];
const watchNames = ["ready", "stage", "message"] as const satisfies readonly SessionWatchEvent["event"][];
type Unlisted<E extends { event: string }, L extends readonly string[]> = Exclude<E["event"], L[number]>;
const everyChatName: [Unlisted<ChatStreamEvent, typeof chatNames>] extends [never] ? true : never = true;
const everyRagName: [Unlisted<RagStreamEvent, typeof ragNames>] extends [never] ? true : never = true;
const everyWatchName: [Unlisted<SessionWatchEvent, typeof watchNames>] extends [never] ? true : never = true;
void [everyChatName, everyRagName, everyWatchName];

/**
 * typedEvents turns raw events into the contract's event objects
 * (`{event, id, data}` with `data` parsed), skipping unknown names.
 */
async function* typedEvents<E extends { event: string }>(
  raw: AsyncIterable<RawEvent>,
  names: readonly string[],
): AsyncGenerator<E, void, undefined> {
  for await (const ev of raw) {
    if (names.includes(ev.event)) {
      yield { event: ev.event, id: ev.id, data: JSON.parse(ev.data) } as unknown as E;
    }
  }
}

/** openStream checks the answer of a stream request and returns its body. */
function openStream(
  what: string,
  result: { data?: ReadableStream<Uint8Array> | null; error?: unknown; response: Response },
): ReadableStream<Uint8Array> {
  const { data, error, response } = result;
  if (error !== undefined || !response.ok) {
    throw new ApiError(response.status, isProblem(error) ? error : undefined, what);
  }
  const type = response.headers.get("Content-Type") ?? "";
  if (!type.startsWith("text/event-stream") || !data) {
    throw new ApiError(response.status, undefined, `${what}: not an event stream (${type || "no Content-Type"})`);
  }
  return data;
}

const eventStream = { Accept: "text/event-stream" } as const;

/** What streamMessage sends. */
export interface StreamMessageOptions {
  /** The tenant (`X-Tenant-Id`). */
  tenantId: string;
  /** The session (`ses_…`). */
  sessionId: string;
  /** The customer's message. */
  body: ChatMessageRequest;
  /**
   * To resume a stream that broke: the `id` of the last event received.
   * Send the same body again; the rest of that reply is replayed and no
   * new message is created.
   */
  lastEventId?: string;
  /** Makes a retry safe: the same key answers the stored reply without a second model call. */
  idempotencyKey?: string;
  /** Aborting stops the request (the service stops generating). */
  signal?: AbortSignal;
}

/**
 * streamMessage sends a customer message with `Accept: text/event-stream`
 * and yields the reply's events, typed from the contract: `meta` first, then
 * `thought` and `delta` pieces, `sources`, and last `done` (the whole
 * ChatReply) or `error`. Breaking out of the loop closes the stream. It
 * throws an ApiError when the service refuses the request.
 */
export async function* streamMessage(
  client: AssistantClient,
  options: StreamMessageOptions,
): AsyncGenerator<ChatStreamEvent, void, undefined> {
  const result = await client.POST("/chat/sessions/{sessionId}/messages", {
    params: {
      path: { sessionId: options.sessionId },
      header: {
        "X-Tenant-Id": options.tenantId,
        "Idempotency-Key": options.idempotencyKey,
        "Last-Event-ID": options.lastEventId,
      },
    },
    body: options.body,
    headers: eventStream,
    parseAs: "stream",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  yield* typedEvents<ChatStreamEvent>(parseEventStream(openStream("streamMessage", result)), chatNames);
}

/** What streamRagExperiment sends. */
export interface StreamRagOptions {
  /** The tenant (`X-Tenant-Id`). */
  tenantId: string;
  /** The query and its overrides. */
  body: RagExperimentRequest;
  signal?: AbortSignal;
}

/**
 * streamRagExperiment runs a query through the RAG lab
 * (`POST /admin/rag/experiments/stream`) and yields its events: `meta`
 * (retrieval), `sources`, `thought` and `delta` pieces, then `done` or `error`.
 */
export async function* streamRagExperiment(
  client: AssistantClient,
  options: StreamRagOptions,
): AsyncGenerator<RagStreamEvent, void, undefined> {
  const result = await client.POST("/admin/rag/experiments/stream", {
    params: { header: { "X-Tenant-Id": options.tenantId } },
    body: options.body,
    headers: eventStream,
    parseAs: "stream",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  yield* typedEvents<RagStreamEvent>(parseEventStream(openStream("streamRagExperiment", result)), ragNames);
}

/** What watchSession watches. */
export interface WatchSessionOptions {
  /** The tenant (`X-Tenant-Id`). */
  tenantId: string;
  /** The session (`ses_…`). */
  sessionId: string;
  /** The stream never ends by itself: abort it (or break out of the loop) when done. */
  signal?: AbortSignal;
}

/**
 * watchSession follows a session's stages live
 * (`GET /chat/sessions/{sessionId}/events`): `ready` once watching has
 * begun, then a `stage` event per stage of every later message.
 */
export async function* watchSession(
  client: AssistantClient,
  options: WatchSessionOptions,
): AsyncGenerator<SessionWatchEvent, void, undefined> {
  const result = await client.GET("/chat/sessions/{sessionId}/events", {
    params: { path: { sessionId: options.sessionId }, header: { "X-Tenant-Id": options.tenantId } },
    headers: eventStream,
    parseAs: "stream",
    ...(options.signal ? { signal: options.signal } : {}),
  });
  yield* typedEvents<SessionWatchEvent>(parseEventStream(openStream("watchSession", result)), watchNames);
}
