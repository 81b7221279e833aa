// The TypeScript client of the customer-service assistant API.
//
//   const client = createAssistantClient({ baseUrl, apiKey });
//   const { data } = await client.POST("/chat/sessions", { params: { header: { "X-Tenant-Id": "acme" } }, body: {} });
//   for await (const ev of streamMessage(client, { tenantId: "acme", sessionId: data!.id, body: { message: "Hi" } })) { … }
//
// See examples/quickstart.ts and the README's Clients section.

export * from "./client.ts";
export * from "./sse.ts";
export type { components, operations, paths } from "./schema.js";
