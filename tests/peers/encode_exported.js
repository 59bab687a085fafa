#!/usr/bin/env node
// Loads the files `bpeforge train` exports into the libraries that own those formats, encodes
// a text file with each, and prints one JSON line per library:
//   {"lib": ..., "tokens": N, "ids_sha256": ..., "roundtrip": true|false}
// ids_sha256 is the sha256 of the ids as little-endian uint32, the bytes of
// `bpeforge encode --dtype uint32`. "<|endoftext|>" and the other special tokens in
// tiktoken.json are matched as special tokens, as bpeforge does.
//
// usage: node encode_exported.js TOKENIZER_DIR TEXT_FILE
// The npm packages `tokenizers`, `tiktoken` and `js-tiktoken` must be on NODE_PATH.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

function sha(ids) {
  const u = Uint32Array.from(ids);
  return crypto.createHash('sha256').update(Buffer.from(u.buffer)).digest('hex');
}

async function main() {
  const [dir, file] = process.argv.slice(2);
  if (!dir || !file) {
    console.error('usage: node encode_exported.js TOKENIZER_DIR TEXT_FILE');
    process.exit(2);
  }
  const text = fs.readFileSync(file, 'utf8');
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'tiktoken.json'), 'utf8'));
  const specials = Object.keys(meta.special_tokens);
  const report = (lib, ids, decoded) =>
    console.log(JSON.stringify({ lib, tokens: ids.length, ids_sha256: sha(ids), roundtrip: decoded === text }));

  // Hugging Face tokenizers: tokenizer.json as it is.
  const { Tokenizer } = require('tokenizers');
  const hf = Tokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  const enc = await hf.encode(text, null, { addSpecialTokens: false });
  const hfIds = enc.getIds();
  report('tokenizers', hfIds, await hf.decode(hfIds, false));

  // tiktoken (Rust core in WASM), as Python's tiktoken.Encoding(name, pat_str=...,
  // mergeable_ranks=load_tiktoken_bpe(...), special_tokens=...) takes the same three parts.
  const { Tiktoken } = require('tiktoken');
  const ranks = fs.readFileSync(path.join(dir, 'tokenizer.tiktoken'), 'utf8');
  const tt = new Tiktoken(ranks, meta.special_tokens, meta.pat_str);
  const ttIds = Array.from(tt.encode(text, specials, []));
  report('tiktoken', ttIds, new TextDecoder().decode(tt.decode(Uint32Array.from(ttIds))));
  tt.free();

  // js-tiktoken: tiktoken.json is its constructor argument as it is.
  const js = new (require('js-tiktoken').Tiktoken)(meta);
  const jsIds = js.encode(text, specials, []);
  report('js-tiktoken', jsIds, js.decode(jsIds));
}

main().catch((e) => { console.error(e); process.exit(1); });
