// The anchor of make bench-og: @vercel/og (Satori + resvg) drawing the same card as /api/og?type=article, on
// Node, 50 times after a warm-up. Prints "median_ms bytes".
import { ImageResponse } from '@vercel/og'

const [title, subtitle] = process.argv.slice(2)
const h = (type, style, ...children) => ({ type, props: { style, children: children.length === 1 ? children[0] : children } })
const card = () =>
  h('div', { width: '100%', height: '100%', display: 'flex', flexDirection: 'column', background: '#ffffff', borderLeft: '16px solid #15803d', padding: '72px 80px 60px 64px', fontSize: 26, color: '#111827' },
    h('div', { display: 'flex' }, h('div', { background: '#15803d', color: '#ffffff', fontSize: 24, padding: '8px 18px' }, 'ARTICLE')),
    h('div', { marginTop: 40, fontSize: 76, lineHeight: 1.2, display: 'flex' }, title),
    h('div', { marginTop: 20, fontSize: 33, color: '#4b5563', display: 'flex' }, subtitle),
    h('div', { marginTop: 'auto', display: 'flex', justifyContent: 'space-between' },
      h('div', { fontSize: 32 }, 'Iris Calloway'), h('div', { color: '#4b5563' }, 'iriscalloway.example')))

async function render () {
  const res = new ImageResponse(card(), { width: 1200, height: 630 })
  return Buffer.from(await res.arrayBuffer())
}

for (let i = 0; i < 5; i++) await render()
const times = []
let bytes = 0
for (let i = 0; i < 50; i++) {
  const t0 = process.hrtime.bigint()
  bytes = (await render()).length
  times.push(Number(process.hrtime.bigint() - t0) / 1e6)
}
times.sort((a, b) => a - b)
console.log(((times[24] + times[25]) / 2).toFixed(2), bytes)
