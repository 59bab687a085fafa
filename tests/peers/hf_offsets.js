#!/usr/bin/env node
// Prints what Hugging Face `tokenizers` reports for texts encoded with a tokenizer.json: one
// JSON line per text, {"ids": [...], "offsets": [[start, end], ...]}, the offsets as the
// library gives them (special tokens matched, no post-processor tokens added).
//
// usage: node hf_offsets.js tokenizer.json TEXTS.json
//   TEXTS.json holds a JSON array of strings.
// The npm package `tokenizers` must be on NODE_PATH.
'use strict';
const fs = require('fs');
const { Tokenizer } = require('tokenizers');

async function main() {
  const [tokenizerPath, textsPath] = process.argv.slice(2);
  if (!tokenizerPath || !textsPath) {
    console.error('usage: node hf_offsets.js tokenizer.json TEXTS.json');
    process.exit(2);
  }
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  for (const text of JSON.parse(fs.readFileSync(textsPath, 'utf8'))) {
    const enc = await tokenizer.encode(text, null, { addSpecialTokens: false });
    console.log(JSON.stringify({ ids: enc.getIds(), offsets: enc.getOffsets() }));
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
