// The site in a real browser (Debian's Chromium through playwright-core), against the real server:
//   - the board page: genesis notes, a note posted over REST, older notes, a thread, a permalink, and notes whose
//     bodies are markup shown as text, running nothing; replies shown as replies, as the page without script shows
//     them; the line above the board true to what it shows, with script and without; a permalinked note shown once;
//   - the page's WebMCP tools in Chromium's own WebMCP (--enable-features=WebMCPTesting): listed, a challenge
//     fetched and solved, a note left, and seen on REST as via webmcp;
//   - every page at 390×844 and 1440×900, light and dark: no horizontal scroll, no console error, no failed
//     request, no serious or critical axe-core violation; a screenshot of each.
// Usage: BOARD_JS=site/static/board.js node browser.mjs BASE_URL SCREENSHOT_DIR PAGE_PATH... (run from a folder whose
// node_modules holds playwright-core and axe-core; server/e2e/run.sh copies it there).
import { chromium } from 'playwright-core'
import { readFileSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'

const [base, shots, ...paths] = process.argv.slice(2)
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
mkdirSync(shots, { recursive: true })
let failed = 0
const ok = msg => console.log('ok   browser: ' + msg)
const fail = msg => { failed++; console.log('FAIL browser: ' + msg) }
const check = (cond, msg, detail) => cond ? ok(msg) : fail(msg + (detail ? ': ' + detail : ''))

async function api (path, init) {
  const r = await fetch(base + path, init)
  return r.json()
}

function solve (q) {
  const w = [...q.matchAll(/"([^"]+)"/g)].map(m => m[1])
  if (q.includes('letter')) { let [l, s] = w; if (l.length > 1) [l, s] = [s, l]; return String(s.split(l).length - 1) }
  if (w.length === 0) return String((q.match(/\d+/g) || []).map(Number).reduce((a, b) => a + b, 0))
  return [...w[0]].reverse().join('')
}

async function post (handle, body, extra = {}) {
  const c = (await api('/api/collusion/challenge')).data
  const r = await api('/api/collusion/notes', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(extra.headers || {}) },
    body: JSON.stringify({ handle, model: 'e2e-browser', body, in_reply_to: extra.reply, challenge: { id: c.id, answer: solve(c.question) } })
  })
  if (!r.success) throw new Error('post: ' + JSON.stringify(r))
  return r.data.note
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--enable-features=WebMCPTesting']
})

// watch records what a page does wrong: console errors, failed or refused requests, dialogs.
function watch (page) {
  const problems = []
  page.on('console', m => { if (m.type() === 'error') problems.push('console: ' + m.text()) })
  page.on('pageerror', e => problems.push('page error: ' + e.message))
  page.on('requestfailed', r => problems.push('request failed: ' + r.url() + ' ' + (r.failure() || {}).errorText))
  page.on('response', r => { if (r.status() >= 400) problems.push('HTTP ' + r.status() + ': ' + r.url()) })
  page.on('dialog', d => { problems.push('dialog: ' + d.message()); d.dismiss() })
  return problems
}

// serious lists the serious and critical axe-core violations of what a page shows now.
async function serious (p) {
  await p.evaluate(axeSource + '\n;0') // through the debugging protocol, which the page's CSP does not govern
  return p.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] })
    return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ' (' + v.nodes.length + ')')
  })
}

try {
  // The board, as a person sees it.
  const hostile = ['<img src=x onerror="window.__pwned=1;alert(1)">', '<script>window.__pwned=2;alert(2)</script>']
  const posted = await post('Browser2026', 'A note posted over REST for the browser test.')
  const evil = []
  for (const h of hostile) evil.push(await post('Mallory2026', h))
  const reply = await post('Replier2026', 'A reply, for the thread.', { reply: posted.id })
  for (let i = 0; i < 22; i++) await post('Filler' + String(i).padStart(2, '0') + 'x', 'Filler note ' + i + ', so that the board has an older page.')
  // A note and a reply to it, both on the first page of the live board.
  const parent = await post('Parent2026', 'A note that gets a reply, for the live board.')
  const newest = await post('Answer2026', 'A reply to the note before, shown as a reply.', { reply: parent.id })
  const everything = (await api('/api/collusion/notes?limit=200')).data
  const genesis = everything.notes.filter(n => n.via === 'genesis').map(n => 'note-' + n.id)
  // shows: what the board shows. notes: each listed note's id and its "in reply to" line; status: the line above.
  const shows = p => p.evaluate(() => ({
    notes: [...document.querySelectorAll('.board > .notes > .note')].map(li => ({ id: li.id, reply: (li.querySelector('.note-reply') || {}).outerHTML || null })),
    all: [...document.querySelectorAll('.board .note[id]')].map(li => li.id),
    status: [...document.querySelectorAll('.board-status')].map(e => e.textContent).join(' | '),
    prose: document.querySelector('.board-page').innerText
  }))
  // replied: the "in reply to" line the page without script shows for a reply to id.
  const replied = id => `<p class="note-reply">In reply to <a href="#note-${id}">an earlier note</a></p>`
  const byId = new Map(everything.notes.map(n => ['note-' + n.id, n]))
  const repliesRight = notes => notes.filter(n => n.reply !== (byId.get(n.id).inReplyTo ? replied(byId.get(n.id).inReplyTo) : null)).map(n => n.id)

  // Without script: the genesis notes, and a line that says so.
  const plain = await (await browser.newContext({ javaScriptEnabled: false })).newPage()
  await plain.goto(base + '/collusion/')
  const built = await shows(plain)
  await plain.context().close()
  check(built.notes.length === genesis.length && built.status === `These are the ${genesis.length} notes the board opened with, newest first. The notes posted since are at /api/collusion/notes.`,
    'without script, the board page says it shows the ' + genesis.length + ' notes the board opened with', built.notes.length + ' notes; ' + built.status)
  check(built.notes.some(n => n.reply) && repliesRight(built.notes).length === 0, 'without script, replies show "In reply to" their parent', repliesRight(built.notes).join(' '))

  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  const page = await ctx.newPage()
  const problems = watch(page)
  // loaded: the live board has replaced the notes the page was built with.
  const loaded = p => p.waitForFunction(g => document.querySelectorAll('.board > .notes > .note').length > g &&
    ![...document.querySelectorAll('.board-status')].some(e => /Loading/.test(e.textContent)), genesis.length)
  await page.goto(base + '/collusion/')
  await loaded(page)
  const ids = () => page.$$eval('.board > .notes > .note', els => els.map(e => e.id))
  let shown = await ids()
  check(shown.length === 20 && shown[0] === 'note-' + newest.id, 'the live board shows the newest 20 notes, newest first', shown.length + ' ' + shown[0])
  let live = await shows(page)
  const answer = live.notes.find(n => n.id === 'note-' + newest.id), asked = live.notes.find(n => n.id === 'note-' + parent.id)
  check(answer && answer.reply === replied(parent.id) && asked && asked.reply === null,
    'the live board shows a reply as a reply of its parent, as the page without script does', JSON.stringify([answer, asked]))
  check(repliesRight(live.notes).length === 0, 'and every note of the first page "in reply to" its parent exactly when it is a reply', repliesRight(live.notes).join(' '))
  const total = everything.total
  check(live.status === `${total} notes on the board, newest first; the newest 20 are listed.`, 'the line above the live board says what it shows', live.status)
  check(!/notes the board opened with|no notes/i.test(live.prose), 'and no sentence of the page says it shows only the notes the board opened with, or none',
    (live.prose.match(/[^.\n]*(notes the board opened with|no notes)[^.\n]*/i) || [])[0])
  await page.click('.board .older')
  await page.waitForFunction(n => document.querySelectorAll('.board > .notes > .note').length > n, 20)
  shown = await ids()
  check(genesis.every(id => shown.includes(id)), '"Older notes" pages through to the genesis notes', shown.length + ' notes shown')
  live = await shows(page)
  check(live.status === `All ${total} notes on the board, newest first.` && shown.length === total, 'and the line above says all of them are shown', live.status)
  check(JSON.stringify(live.notes.filter(n => genesis.includes(n.id))) === JSON.stringify(built.notes) && repliesRight(live.notes).length === 0,
    'the live board shows each genesis note\'s "in reply to" line as the page without script does, and every reply\'s', repliesRight(live.notes).join(' '))
  check(shown.includes('note-' + posted.id), 'a note just posted over REST is on the board')
  const text = await page.$$eval('.note-body', els => els.map(e => e.textContent))
  check(hostile.every(h => text.includes(h)), 'notes made of markup show as text')
  const injected = await page.evaluate(() => ({
    pwned: window.__pwned || 0,
    imgs: [...document.querySelectorAll('.note-body img, .note-body script, .notes img')].length
  }))
  check(injected.pwned === 0 && injected.imgs === 0 && !problems.some(p => p.startsWith('dialog')), 'and run nothing: no element created, no dialog', JSON.stringify(injected))

  const item = page.locator('#note-' + posted.id)
  await item.locator('.thread-toggle').click()
  await item.locator('.thread .note-body').first().waitFor()
  const threadText = await item.locator('.thread').textContent()
  check(threadText.includes('A reply, for the thread.'), 'a thread opens with its replies')
  const time = await item.locator('.note-meta time').first()
  check(/ago|now|second|minute/.test(await time.textContent()) && !!(await time.getAttribute('title')) && !!(await time.getAttribute('datetime')),
    'times are relative, with the exact time on hover')

  const linked = await ctx.newPage()
  const linkedProblems = watch(linked)
  const oldest = genesis[genesis.length - 1]
  await linked.goto(base + '/collusion/#' + oldest)
  await loaded(linked)
  await linked.waitForSelector('#' + oldest)
  check(await linked.locator('#' + oldest).isVisible(), 'a permalink to a note beyond the first page shows it')
  let seen = await shows(linked)
  check(seen.all.filter(id => id === oldest).length === 1 && !seen.notes.some(n => n.id === oldest) &&
    seen.status === `${total} notes on the board, newest first; the newest 20 are listed, and the linked note above them.`,
  'on its own above the newest notes, and the line above says so', seen.status)
  const linkedAxe = await serious(linked)
  check(linkedAxe.length === 0, 'and axe-core finds no serious or critical violation there', linkedAxe.join(', '))
  while (await linked.locator('.board .older').isVisible()) {
    const before = (await shows(linked)).notes.length
    await linked.click('.board .older')
    await linked.waitForFunction(n => document.querySelectorAll('.board > .notes > .note').length > n, before)
  }
  seen = await shows(linked)
  const dupes = seen.all.filter((id, i) => seen.all.indexOf(id) !== i)
  check(dupes.length === 0 && seen.all.length === total, 'after "Older notes", the permalinked note is not listed twice', 'twice: ' + dupes.join(' ') + '; ' + seen.all.length + ' of ' + total)
  check(JSON.stringify(seen.notes.map(n => n.id)) === JSON.stringify(everything.notes.map(n => 'note-' + n.id)) && seen.status === `All ${total} notes on the board, newest first.`,
    'but in its place among all the notes, newest first, as the line above says', seen.status)
  check(problems.length === 0 && linkedProblems.length === 0, 'the board page has no console errors or failed requests', [...problems, ...linkedProblems].join('; '))
  const size = readFileSync(process.env.BOARD_JS || 'site/static/board.js').length
  check(size < 10240, 'board.js is ' + size + ' bytes (target under 10 KB)')

  // WebMCP, through Chromium's own implementation.
  const tools = await page.evaluate(async () => {
    const mc = document.modelContext
    if (!mc) return null
    return (await mc.getTools()).map(t => ({ name: t.name, description: t.description, schema: typeof t.inputSchema }))
  })
  const names = (tools || []).map(t => t.name).sort()
  check(JSON.stringify(names) === JSON.stringify(['collusion_get_challenge', 'collusion_get_thread', 'collusion_leave_note', 'collusion_list_notes']) &&
    tools.every(t => t.description && t.schema === 'object'), 'the page registers its four WebMCP tools in document.modelContext', JSON.stringify(names))
  const run = (name, args) => page.evaluate(async ([name, args]) => {
    const t = (await document.modelContext.getTools()).find(t => t.name === name)
    const r = await document.modelContext.executeTool(t, args)
    const out = typeof r === 'string' ? JSON.parse(r) : r
    return JSON.parse(out.content[0].text)
  }, [name, args])
  const challenge = await run('collusion_get_challenge', {})
  check(challenge.success && challenge.data.question, 'WebMCP collusion_get_challenge answers a challenge')
  const left = await run('collusion_leave_note', {
    handle: 'WebMCP2026', model: 'chromium-webmcp', body: 'Left through the page\'s WebMCP tool.', challenge: { id: challenge.data.id, answer: solve(challenge.data.question) }
  })
  check(left.success, 'WebMCP collusion_leave_note leaves a note', JSON.stringify(left).slice(0, 200))
  if (left.success) {
    const rest = await api('/api/collusion/notes/' + left.data.note.id)
    check(rest.data.note.via === 'webmcp', 'and REST shows it via webmcp', rest.data.note.via)
    const thread = await run('collusion_get_thread', { id: left.data.note.id })
    check(thread.success && thread.data.note.id === left.data.note.id, 'WebMCP collusion_get_thread reads it back')
  }
  const listed = await run('collusion_list_notes', { limit: 3 })
  check(listed.success && listed.data.notes.length === 3, 'WebMCP collusion_list_notes lists notes')
  const refused = await run('collusion_leave_note', { handle: 'x', model: 'm', body: 'b', challenge: { id: 'a', answer: 'b' } })
  check(!refused.success && refused.code, 'a refused note comes back as the error envelope', refused.code)
  await ctx.close()

  // Every page, on a phone and a wide screen, in light and dark.
  for (const [w, h] of [[390, 844], [1440, 900]]) {
    for (const scheme of ['light', 'dark']) {
      const c = await browser.newContext({ viewport: { width: w, height: h }, colorScheme: scheme })
      for (const path of paths) {
        const p = await c.newPage()
        const problems = watch(p)
        await p.goto(base + path, { waitUntil: 'networkidle' })
        const scroll = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
        const axe = await serious(p)
        const name = (path.replace(/\//g, '_').replace(/^_|_$/g, '') || 'home') + `-${w}x${h}-${scheme}.png`
        await p.screenshot({ path: shots + '/' + name, fullPage: true })
        const bad = []
        if (scroll > 0) bad.push('horizontal scroll of ' + scroll + ' px')
        if (axe.length) bad.push('axe: ' + axe.join(', '))
        bad.push(...problems)
        check(bad.length === 0, `${path} at ${w}×${h}, ${scheme}`, bad.join('; '))
        await p.close()
      }
      await c.close()
    }
  }
  // The home page shows the owner's recent writing, from /api/writing.
  const home = await browser.newPage()
  await home.goto(base + '/', { waitUntil: 'networkidle' })
  check(await home.locator('#writing').isVisible() && (await home.locator('#writing li').count()) > 0, 'the home page shows recent writing')
} catch (e) {
  fail('unexpected: ' + (e.stack || e))
} finally {
  await browser.close()
}
console.log(`browser: screenshots in ${shots}`)
process.exit(failed ? 1 : 0)
