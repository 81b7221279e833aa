// The REST client: openapi-fetch over the types generated from the contract
// (schema.d.ts, `make generate`).

import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";

/** Every schema of the contract, by name: `Schemas["ChatReply"]`. */
export type Schemas = components["schemas"];

/** A reply to a customer message (the JSON answer, and the data of a stream's `done`). */
export type ChatReply = Schemas["ChatReply"];
/** The body of `POST /chat/sessions/{sessionId}/messages`. */
export type ChatMessageRequest = Schemas["ChatMessageRequest"];
/** The body of `POST /admin/rag/experiments/run` and `/stream`. */
export type RagExperimentRequest = Schemas["RagExperimentRequest"];
/** An RFC 9457 problem, the body of every error. */
export type Problem = Schemas["Problem"];

/**
 * The media types the client reads: replies as `application/json`, errors
 * as `application/problem+json`. Naming them (openapi-fetch's media-type
 * parameter) types `data` of postChatMessage as `ChatReply`, not
 * `ChatReply | string` (its event stream is read with streamMessage), and
 * `error` as `Problem`.
 */
export type JsonMedia = "application/json" | "application/problem+json";

/** The typed client of the API (openapi-fetch). */
export type AssistantClient = Client<paths, JsonMedia>;

/** How to reach the service. */
export interface ClientOptions {
  /** The API root, e.g. `http://127.0.0.1:8080/api/v1`. */
  baseUrl: string;
  /** The API key, sent as `X-API-Key` with every request. */
  apiKey: string;
  /** A fetch to use instead of the global one (tests, proxies, retries). */
  fetch?: typeof globalThis.fetch;
}

/**
 * createAssistantClient returns the typed client of the API. Operations take
 * their headers as typed parameters: `X-Tenant-Id` where the contract wants
 * one, and `Idempotency-Key` on createApiKey, uploadDocument,
 * createChatSession and postChatMessage.
 */
export function createAssistantClient(options: ClientOptions): AssistantClient {
  return createClient<paths, JsonMedia>({
    baseUrl: options.baseUrl,
    headers: { "X-API-Key": options.apiKey },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** The problem of a failed call, as an Error (thrown by the helpers of this package). */
export class ApiError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The problem the service answered, when it answered one. */
  readonly problem: Problem | undefined;

  constructor(status: number, problem: Problem | undefined, what: string) {
    super(`${what}: ${status}${problem ? ` ${problem.code}: ${problem.detail}` : ""}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
  }
}

/** isProblem reports whether an error body is a problem of the contract. */
export function isProblem(body: unknown): body is Problem {
  return typeof body === "object" && body !== null && "code" in body && "status" in body;
}

/** What uploadDocument sends. */
export interface UploadOptions {
  /** The tenant to act in (`X-Tenant-Id`). */
  tenantId: string;
  /** The knowledge base to add the document to. */
  kbId: string;
  /** The file's content. */
  file: Blob;
  /** The file's name; its extension must agree with the content. */
  fileName: string;
  /** Metadata (validated against the tenant's `document` metadata fields). */
  metadata?: Record<string, unknown>;
  /** Makes a retry safe: the same key answers the stored 202 instead of a second upload. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/**
 * uploadDocument posts a file as multipart/form-data (`POST
 * /admin/kb/documents`) and answers the accepted document with its index
 * job. The generated types describe the binary `file` part as a string, so
 * the form is built here.
 */
export async function uploadDocument(
  client: AssistantClient,
  options: UploadOptions,
): Promise<Schemas["DocumentAccepted"]> {
  const form = new FormData();
  form.append("file", options.file, options.fileName);
  form.append("kbId", options.kbId);
  if (options.metadata) {
    form.append("metadata", JSON.stringify(options.metadata));
  }
  const { data, error, response } = await client.POST("/admin/kb/documents", {
    params: {
      header: { "X-Tenant-Id": options.tenantId, "Idempotency-Key": options.idempotencyKey },
    },
    // The typed body is what the form carries; the serializer sends the form.
    body: { kbId: options.kbId, file: options.fileName },
    bodySerializer: () => form,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (error !== undefined || data === undefined) {
    throw new ApiError(response.status, isProblem(error) ? error : undefined, "uploadDocument");
  }
  return data;
}
