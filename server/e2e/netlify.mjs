// The static host's rules as Netlify reads them, with Netlify's own packages: @netlify/config resolves netlify.toml
// with the _redirects and _headers the build wrote into public/ (as a deploy does), @netlify/redirects matches
// paths with Netlify's redirect engine (netlify-redirector), and @netlify/headers applies the header rules.
//
//   node netlify.mjs ROOT [LOCAL_URL] [NEW_PAGE]
//
// ROOT holds netlify.toml, site/site.yaml and the built public/. Every page of site.yaml must have its markdown
// rule, an unknown page the markdown 404, the API its signed proxies, and a few paths their headers. With
// LOCAL_URL (a server in local mode serving ROOT/public), local mode must answer each of those paths as Netlify
// would: status, body and headers. With NEW_PAGE (a page added for the test), that page must be among them, and
// the build command's API_ORIGIN rewrite is run on ROOT/netlify.toml and checked.
import { execSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { resolveConfig } from '@netlify/config'
import { RedirectsHandler } from '@netlify/redirects'
import { HeadersHandler } from '@netlify/headers'
import YAML from 'yaml'

const [root, local, newPage] = process.argv.slice(2)
const origin = 'https://api.iriscalloway.example'
const public_ = path.join(root, 'public')
let failures = 0
const fail = (msg) => { console.log('FAIL: ' + msg); failures++ }

async function config() {
  const r = await resolveConfig({ config: path.join(root, 'netlify.toml'), repositoryRoot: root, cwd: root, context: 'production', offline: true, buffer: true })
  const logs = [...r.logs.stdout, ...r.logs.stderr].join('\n').trim()
  if (logs) fail(`@netlify/config reported:\n${logs}`)
  return r
}

const resolved = await config()
if (resolved.config.build.publish !== public_) fail(`publish = ${resolved.config.build.publish}, want ${public_}`)
if (resolved.redirectsPath !== path.join(public_, '_redirects') || !existsSync(resolved.redirectsPath)) fail('no public/_redirects')
if (resolved.headersPath !== path.join(public_, '_headers') || !existsSync(resolved.headersPath)) fail('no public/_headers')
process.env.API_SIGNATURE_TOKEN = 'e2e-signing-secret' // Netlify signs proxied requests with the secret it names
const redirects = new RedirectsHandler({ configRedirects: resolved.config.redirects, projectDir: root, publicDir: public_, jwtRoleClaim: '', jwtSecret: '' })
const headerErrors = []
const logger = { log() {}, warn: (m) => headerErrors.push(m), error: (m) => headerErrors.push(m) }
const headers = new HeadersHandler({ configPath: path.join(root, 'netlify.toml'), projectDir: root, publishDir: 'public', logger })
const request = (p) => new Request('https://site.example' + p)

const pages = YAML.parse(readFileSync(path.join(root, 'site', 'site.yaml'), 'utf8')).pages
if (newPage && !pages.includes(newPage)) fail(`${newPage} is not in site.yaml's pages`)

// What Netlify answers for a path: a rewrite to a file of public/ (status, file), a proxy, or the file itself.
async function netlify(p) {
  const m = await redirects.match(request(p))
  const h = await headers.apply(request(p))
  if (m?.external) return { proxy: m.target.href, signed: Boolean(m.headers['x-nf-sign']), error: m.error, headers: h }
  if (m) return { status: m.statusCode, file: m.targetRelative, headers: h }
  let file = p.endsWith('/') ? p + 'index.html' : p
  if (!existsSync(path.join(public_, file))) return { status: 404, file: '/404.html', headers: h, fallback: true }
  return { status: 200, file, headers: h, plain: true }
}

const rewrites = [['/api/md', 200, '/md/index.md'], ['/api/md/', 200, '/md/index.md'], ['/api/sitemap.xml', 200, '/sitemap.xml'],
  ['/api/md/missing', 404, '/md/404.md'], [`/api/md/${pages[0]}/extra`, 404, '/md/404.md'],
  ...pages.map((id) => [`/api/md/${id}`, 200, `/${id}.md`])]
for (const [p, status, file] of rewrites) {
  const a = await netlify(p)
  if (a.status !== status || a.file !== file) fail(`${p}: Netlify answers ${a.proxy ?? `${a.status} ${a.file}`}, want ${status} ${file}`)
  else if (!existsSync(path.join(public_, file))) fail(`${p}: ${file} is not in public/`)
}
console.log(`ok   @netlify/redirects: /api/md, the ${pages.length} pages' mirrors${newPage ? ` (with ${newPage}, added for the test)` : ''}, the markdown 404, the sitemap`)

const proxied = ['/api/mcp', '/api/collusion/notes', '/api/collusion/notes/01K4282CM0E4A31XGP9T9R0FCK', '/api/collusion/challenge',
  '/api/logo/example.com', '/api/og', '/api/writing', '/api/health', '/api/nothing']
for (const p of proxied) {
  const a = await netlify(p)
  if (a.proxy !== origin + p || !a.signed || a.error) fail(`${p}: Netlify answers ${a.proxy ?? `${a.status} ${a.file}`} (signed ${a.signed}, ${a.error}), want a signed proxy to ${origin}${p}`)
}
console.log(`ok   @netlify/redirects: ${proxied.length} API paths are signed proxies to ${origin}`)

const markdown = { 'Content-Type': 'text/markdown; charset=utf-8', 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'public, max-age=300' }
const typed = (type) => ({ ...markdown, 'Content-Type': type })
const security = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'strict-origin-when-cross-origin' }
const wantHeaders = {
  '/': { ...security, 'Content-Type': undefined }, '/about/': { ...security, 'Content-Type': undefined },
  '/about.md': markdown, '/api/md': markdown, '/api/md/about': markdown, '/api/md/missing': markdown,
  '/llms.txt': typed('text/plain; charset=utf-8'), '/llms-full.txt': typed('text/plain; charset=utf-8'),
  '/sitemap.xml': typed('text/xml; charset=utf-8'), '/api/sitemap.xml': typed('text/xml; charset=utf-8'),
  '/openapi.json': typed('application/json'), '/.well-known/mcp.json': typed('application/json'),
  '/static/style.css': { ...security, 'Cache-Control': 'public, max-age=86400', 'Content-Type': undefined },
}
for (const [p, want] of Object.entries(wantHeaders)) {
  const got = (await netlify(p)).headers
  if (!got['Content-Security-Policy']?.startsWith("default-src 'self'")) fail(`${p}: no Content-Security-Policy`)
  for (const [name, value] of Object.entries(want)) if (got[name] !== value) fail(`${p}: ${name} is ${got[name]}, want ${value}`)
}
if (headerErrors.length) fail(`@netlify/headers reported:\n${headerErrors.join('\n')}`)
console.log(`ok   @netlify/headers: ${Object.keys(wantHeaders).length} paths have their content type, cache and security headers`)

if (local) {
  const paths = [...rewrites.map(([p]) => p), ...Object.keys(wantHeaders), '/missing/', ...pages.map((id) => (id === 'index' ? '/' : `/${id}/`))]
  for (const p of [...new Set(paths)]) {
    const want = await netlify(p)
    const res = await fetch(local + p, { redirect: 'manual' })
    const body = Buffer.from(await res.arrayBuffer())
    if (res.status !== want.status || !body.equals(readFileSync(path.join(public_, want.file)))) {
      fail(`${p}: local mode answers ${res.status} with ${body.length} bytes; Netlify ${want.status} with ${want.file}`)
    }
    for (const [name, value] of Object.entries(want.headers)) {
      if (res.headers.get(name) !== value) fail(`${p}: local mode's ${name} is ${res.headers.get(name)}, Netlify's ${value}`)
    }
  }
  console.log(`ok   local mode answers the same ${new Set(paths).size} paths as Netlify: status, body and headers`)
}

if (newPage) {
  // The build command rewrites the proxies to API_ORIGIN before Netlify reads netlify.toml; run that part here.
  const command = resolved.config.build.command
  const rewrite = command.replace(/ && make build$/, '')
  if (rewrite === command) fail(`the build command does not end with "&& make build": ${command}`)
  execSync(rewrite, { cwd: root, env: { ...process.env, API_ORIGIN: 'https://api.elsewhere.example' }, shell: '/bin/sh' })
  const moved = await config()
  const proxies = moved.config.redirects.filter((r) => r.signed)
  const stray = proxies.filter((r) => !r.to.startsWith('https://api.elsewhere.example/api/'))
  if (proxies.length === 0 || stray.length) fail(`after the API_ORIGIN rewrite, proxies still go to ${stray.map((r) => r.to).join(', ')}`)
  else console.log(`ok   the build command moves the ${proxies.length} proxies to API_ORIGIN`)
}
if (failures) process.exit(1)
