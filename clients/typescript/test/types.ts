// Compile-time checks of the client's types (make test compiles this file;
// nothing runs it): what the generation flags and the media-type parameter
// are for.

import type { AssistantClient, ChatReply, Problem, Schemas } from "../src/index.ts";

/** Equal is true when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export async function replyTypes(client: AssistantClient): Promise<void> {
  const r = await client.POST("/chat/sessions/{sessionId}/messages", {
    params: { path: { sessionId: "ses_1" }, header: { "X-Tenant-Id": "acme" } },
    body: { message: "Hi" },
  });
  // The JSON reply is a ChatReply, not ChatReply | string (the event stream).
  const data: Equal<NonNullable<typeof r.data>, ChatReply> = true;
  // An error is the problem of the contract.
  const error: Equal<NonNullable<typeof r.error>, Problem> = true;
  void [data, error];
}

export async function defaultsAreOptional(client: AssistantClient): Promise<void> {
  // A session needs nothing: every field has a default or is optional.
  await client.POST("/chat/sessions", { params: { header: { "X-Tenant-Id": "acme" } }, body: {} });
  // Fields with a default may be left out of a request (--default-non-nullable=false).
  const lab: Schemas["RagExperimentRequest"] = { query: "refunds?" };
  const reindex: Schemas["ReindexRequest"] = {};
  void [lab, reindex];
}
