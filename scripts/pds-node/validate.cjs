// Validates records (JSON, one a line, on stdin) against Lexicon files, with the reference
// implementation's validator (@atproto/lexicon). `scripts/pds validate LEXICON.json...`.
// Exits 1 naming the first record that does not fit.
const fs = require('node:fs')
const { Lexicons, jsonToLex } = require('@atproto/lexicon')

const lexicons = new Lexicons()
for (const file of process.argv.slice(2)) lexicons.add(JSON.parse(fs.readFileSync(file, 'utf8')))
let n = 0
for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
  if (!line.trim()) continue
  const record = JSON.parse(line)
  try {
    // jsonToLex: blob references arrive as JSON ({"$link": …}) and are checked as blobs.
    lexicons.assertValidRecord(record.$type, jsonToLex(record))
  } catch (e) {
    console.error(`record ${n + 1} (${record.$type}): ${e.message}`)
    process.exit(1)
  }
  n++
}
console.log(`${n} records valid`)
