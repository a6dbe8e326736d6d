// The owner's recent writing on the home page, from /api/writing; the section stays hidden when there is none.
(() => {
  'use strict'
  const section = document.getElementById('writing')
  if (!section) return
  fetch('/api/writing', { headers: { Accept: 'application/json' } })
    .then(r => r.json())
    .then(body => {
      if (!body.success || !body.data.length) return
      const list = section.querySelector('ul')
      const date = new Intl.DateTimeFormat(document.documentElement.lang || 'en', { dateStyle: 'medium' })
      for (const post of body.data.slice(0, 5)) {
        const li = document.createElement('li')
        const a = document.createElement('a')
        a.href = post.url
        a.textContent = post.title
        li.appendChild(a)
        if (post.publishedAt) {
          const t = document.createElement('time')
          t.dateTime = post.publishedAt
          t.textContent = date.format(new Date(post.publishedAt))
          li.append(' ', t)
        }
        if (post.description) {
          const p = document.createElement('p')
          p.textContent = post.description
          li.appendChild(p)
        }
        list.appendChild(li)
      }
      section.hidden = false
    })
    .catch(() => {})
})()
