// The reference side of test_hf_tokenizers.cpp: encodes every entry of a JSON array with Hugging
// Face's own tokenizers (the Rust library through the Node bindings of the npm package
// @anush008/tokenizers) and writes a JSON array of {"ids": [...], "tokens": [...], "type_ids":
// [...]}, one per entry, as Tokenizer.encode(text, null, {addSpecialTokens: true}) gives them; an
// entry [a, b] is a pair, encode(a, b, ...).
//
//   node hf_reference_encode.js PACKAGE_DIR TOKENIZER.json CORPUS.json OUT.json
const fs = require('fs');
const path = require('path');

const [packageDir, tokenizerPath, corpusPath, outPath] = process.argv.slice(2);
if (!packageDir || !tokenizerPath || !corpusPath || !outPath) {
  console.error('usage: node hf_reference_encode.js PACKAGE_DIR TOKENIZER.json CORPUS.json OUT.json');
  process.exit(2);
}
const { Tokenizer } = require(path.resolve(packageDir, 'index.js'));

(async () => {
  const tokenizer = Tokenizer.fromFile(tokenizerPath);
  const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf-8'));
  const out = [];
  for (const entry of corpus) {
    const [text, pair] = Array.isArray(entry) ? entry : [entry, null];
    const encoding = await tokenizer.encode(text, pair, { addSpecialTokens: true });
    out.push({ ids: encoding.getIds(), tokens: encoding.getTokens(), type_ids: encoding.getTypeIds() });
  }
  fs.writeFileSync(outPath, JSON.stringify(out));
})().catch(error => {
  console.error(String(error));
  process.exit(1);
});
