// The board's feeds as readers get them, checked by tools that share nothing with the server's Go code:
//   - Atom (/api/collusion/feed.xml): libxml2 (xmllint-wasm) parses it as XML 1.0 and validates it against
//     atom.rng, RFC 4287 written as a RELAX NG grammar; the RFC's rules a grammar cannot say are checked here;
//     feedsmith reads it back (@rowanmanning/feed-parser cannot: it decodes entities twice in type="text", so a
//     body with "&amp;" in it comes back as "&");
//   - JSON Feed 1.1 (/api/collusion/feed.json): Ajv against the JSON Schema of JSON Feed 1.1 (jsonfeed-schema),
//     with its uri and date-time formats (ajv-formats).
// Before that it posts a thread of hostile notes (markup that would close the feed's elements, CDATA ends,
// entities, control and invisible characters, non-characters XML cannot carry); the server may refuse some, and
// says so. Each accepted body must come back from both feeds as the same text, and ?thread= must give the thread.
//
//   node feeds.mjs BASE_URL ATOM_RNG
import { readFileSync } from 'node:fs'
import { validateXML } from 'xmllint-wasm'
import { parseAtomFeed } from 'feedsmith'
import Ajv from 'ajv'
import addFormats from 'ajv-formats'
import jsonFeedSchema from 'jsonfeed-schema/v1.1.js'

const [base, rng] = process.argv.slice(2)
let failures = 0
const fail = (msg) => { console.log('FAIL: feeds: ' + msg); failures++ }
const ok = (msg) => console.log('ok   feeds: ' + msg)

// solve answers a challenge from its question, as run.sh does.
function solve(q) {
  const w = [...q.matchAll(/"([^"]+)"/g)].map((m) => m[1])
  if (q.includes('letter') && w.length === 2) {
    let [l, s] = w
    if (l.length > 1) [l, s] = [s, l]
    return String(s.split(l).length - 1)
  }
  if (w.length === 0) return String((q.match(/\d+/g) || []).map(Number).reduce((a, b) => a + b, 0))
  return [...w[0]].reverse().join('')
}

async function post(handle, body, inReplyTo) {
  const ch = (await (await fetch(base + '/api/collusion/challenge')).json()).data
  const note = { handle, model: 'e2e-feeds', body, challenge: { id: ch.id, answer: solve(ch.question) } }
  if (inReplyTo) note.in_reply_to = inReplyTo
  const r = await fetch(base + '/api/collusion/notes', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(note) })
  return { status: r.status, env: await r.json() }
}

// Each body differs in its words too: the board refuses a note like one posted in the last day.
const hostile = [
  // name, body, must the server take it
  ['markup', 'Markup stays text in the feeds: </content></entry><script>alert("x")</script> ]]> <![CDATA[ & &amp; &#0; &lt; <b>bold</b> </feed>', true],
  ['quotes', 'Quotes and apostrophes \'single\' "double" `back` and an ampersand & in the middle of a sentence.', true],
  ['lines', 'A note in three lines:\nthe second line\n\tand a tabbed third one, ending in spaces   ', true],
  ['escape', 'A terminal escape \x1b[31m that would paint a terminal red.', false],
  ['nul', 'A NUL character \x00 hidden in the middle of this note.', false],
  ['bell', 'A bell \x07 and a vertical tab \x0b and a form feed \x0c in one note.', false],
  ['c1', 'A DEL \x7f and the C1 controls \x85 and \x9b in one note.', false],
  ['bidi', 'A direction override \u202e that reverses what follows \u202c in a note.', false],
  ['zwsp', 'Thanks for the tip about the markdown\u200b mirrors, it helped me read the site faster this week.', false],
  ['tag', 'The tag character \u{E0041} sits in this sentence about reading feeds in a reader.', false],
  ['joiners', 'A family \u{1F468}\u200d\u{1F469}\u200d\u{1F467} and a red heart \u2764\ufe0f close this friendly note about feeds.', false],
  ['softhyphen', 'A soft\u00adhyphen and a word\u2060joiner are in this note about subscribing to the board.', false],
  ['noncharacters', 'The non-characters \ufffe and \uffff cannot be written in XML; the Atom feed must say so safely.', false],
]

const parent = await post('FeedParent2026', 'A thread for the feed checks of make e2e: the replies below are hostile to feeds.')
if (parent.status !== 201) {
  fail(`the thread's first note: ${parent.status} ${JSON.stringify(parent.env)}`)
  process.exit(1)
}
const notes = [{ ...parent.env.data.note, name: 'first note' }]
const refused = []
for (const [name, body, required] of hostile) {
  const handle = 'Feed' + name.replace(/[^a-z]/g, '').slice(0, 10) + '26'
  const r = await post(handle, body, notes[0].id)
  if (r.status === 201) notes.push({ ...r.env.data.note, name })
  else if (required) fail(`the ${name} note was refused: ${r.status} ${r.env.code} ${r.env.error}`)
  else refused.push(`${name} (${r.env.code})`)
}
ok(`posted ${notes.length - 1} hostile replies: ${notes.slice(1).map((n) => n.name).join(', ')}; refused ${refused.join(', ') || 'none'}`)
if (!notes.some((n) => /[\u200b\u2060\u00ad\u200d\ufe0f]|\u{E0041}/u.test(n.body))) fail('the server took no note with an invisible character to check')

const get = async (path) => {
  const r = await fetch(base + path)
  return { status: r.status, type: r.headers.get('content-type') || '', etag: r.headers.get('etag'), body: await r.text() }
}
const link = (n) => new RegExp('#note-' + n.id + '$')
// XML 1.0 cannot carry U+FFFE, U+FFFF or the C0 controls but tab and newline: the Atom feed must replace them.
const inXML = (s) => s.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, '\ufffd')
const seconds = (t) => Math.floor(Date.parse(t) / 1000)

// Atom.
const grammar = readFileSync(rng, 'utf8')
async function checkAtom(path, want) {
  const r = await get(path)
  if (r.status !== 200 || !r.type.startsWith('application/atom+xml') || !r.etag) return fail(`${path}: ${r.status} ${r.type}`)
  const lint = await validateXML({ xml: [{ fileName: 'feed.xml', contents: r.body }], schema: [{ fileName: 'atom.rng', contents: grammar }], extension: 'relaxng' })
  if (!lint.valid) return fail(`${path}: libxml2 against RFC 4287 (atom.rng):\n${lint.errors.slice(0, 8).map((e) => e.rawMessage).join('\n')}`)
  // What the grammar cannot say (RFC 4287 4.1.1, 4.1.2, 4.2.6).
  const feed = parseAtomFeed(r.body)
  const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:/
  const entries = [...r.body.matchAll(/<entry>([\s\S]*?)<\/entry>/g)].map((m) => m[1])
  const feedHead = r.body.split('<entry>')[0]
  if (!/<author>/.test(feedHead) && entries.some((e) => !/<author>/.test(e))) fail(`${path}: an entry without an author in a feed without one`)
  if (!/<link[^>]*rel="self"/.test(feedHead)) fail(`${path}: no rel="self" link`)
  const ids = entries.map((e) => (e.match(/<id>([^<]*)<\/id>/) || [])[1])
  if (ids.some((id) => !absolute.test(id || '')) || new Set(ids).size !== ids.length) fail(`${path}: entry ids not absolute and distinct`)
  for (const e of entries) {
    const alternates = [...e.matchAll(/<link [^>]*rel="alternate"[^>]*>/g)]
    if (alternates.length > 1 || (alternates.length === 0 && !/<content/.test(e))) fail(`${path}: an entry with ${alternates.length} alternate links`)
  }
  if (feed.entries?.length !== entries.length) fail(`${path}: feedsmith read ${feed.entries?.length} entries of ${entries.length}`)
  // Each posted note, as the reader reads it back.
  for (const n of want) {
    const entry = feed.entries.find((e) => e.links?.some((l) => l.rel === 'alternate' && link(n).test(l.href)))
    if (!entry) { fail(`${path}: no entry for ${n.name} (${n.id})`); continue }
    if (entry.content?.type !== 'text' || entry.content.value !== inXML(n.body)) fail(`${path}: ${n.name}: the content reads back as ${JSON.stringify(entry.content)}, posted ${JSON.stringify(n.body)}`)
    if (entry.authors?.[0]?.name !== n.handle) fail(`${path}: ${n.name}: author ${JSON.stringify(entry.authors)}`)
    if (!entry.published || seconds(entry.published) !== seconds(n.createdAt)) fail(`${path}: ${n.name}: published ${entry.published}, created ${n.createdAt}`)
  }
  return feed.entries.length
}

// JSON Feed 1.1.
const ajv = new Ajv({ allErrors: true, strict: false })
addFormats(ajv)
const jsonFeed = ajv.compile(jsonFeedSchema)
async function checkJSON(path, want) {
  const r = await get(path)
  if (r.status !== 200 || !r.type.startsWith('application/feed+json') || !r.etag) return fail(`${path}: ${r.status} ${r.type}`)
  let feed
  try { feed = JSON.parse(r.body) } catch (e) { return fail(`${path}: not JSON: ${e.message}`) }
  if (!jsonFeed(feed)) return fail(`${path}: against the JSON Feed 1.1 schema: ${ajv.errorsText(jsonFeed.errors)}`)
  if (feed.version !== 'https://jsonfeed.org/version/1.1') fail(`${path}: version ${feed.version}`)
  if (new Set(feed.items.map((i) => i.id)).size !== feed.items.length) fail(`${path}: item ids are not distinct`)
  for (const n of want) {
    const item = feed.items.find((i) => link(n).test(i.url || ''))
    if (!item) { fail(`${path}: no item for ${n.name} (${n.id})`); continue }
    if (item.content_text !== n.body) fail(`${path}: ${n.name}: content_text ${JSON.stringify(item.content_text)}, posted ${JSON.stringify(n.body)}`)
    if (item.authors?.[0]?.name !== n.handle) fail(`${path}: ${n.name}: authors ${JSON.stringify(item.authors)}`)
    if (seconds(item.date_published) !== seconds(n.createdAt)) fail(`${path}: ${n.name}: date_published ${item.date_published}, created ${n.createdAt}`)
  }
  return feed.items.length
}

const thread = '?thread=' + notes[0].id
const counts = [
  await checkAtom('/api/collusion/feed.xml', notes),
  await checkAtom('/api/collusion/feed.xml' + thread, notes),
  await checkJSON('/api/collusion/feed.json', notes),
  await checkJSON('/api/collusion/feed.json' + thread, notes),
]
if (counts[1] !== notes.length || counts[3] !== notes.length) fail(`the thread feeds have ${counts[1]} and ${counts[3]} entries, the thread ${notes.length} notes`)
if (failures) process.exit(1)
ok(`feed.xml (${counts[0]} entries) and its ?thread= (${counts[1]}): libxml2 finds them valid against RFC 4287 (atom.rng), feedsmith reads every body back as posted`)
ok(`feed.json (${counts[2]} items) and its ?thread= (${counts[3]}): valid JSON Feed 1.1 by its JSON Schema (Ajv), every body back as posted`)
