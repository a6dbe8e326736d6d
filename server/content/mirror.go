package content

import (
	"bytes"
	"time"

	"gopkg.in/yaml.v3"
)

// MirrorFrontMatter is the front matter of every markdown mirror.
type MirrorFrontMatter struct {
	Title        string    `yaml:"title"`
	Description  string    `yaml:"description"`
	URL          string    `yaml:"url"`
	LastModified time.Time `yaml:"lastModified"`
}

// WriteMirror writes the markdown mirror of page p: front matter, then the markdown of m (p itself, or the file
// that stands in for it), addressed at p's URL.
func WriteMirror(w *bytes.Buffer, s *Site, p, m *Page) {
	WriteFrontMatter(w, m.Title, m.Description, s.URL(p.Path()), m.LastModified)
	w.Write(bytes.TrimLeft(m.Body, "\r\n"))
	if !bytes.HasSuffix(w.Bytes(), []byte("\n")) {
		w.WriteByte('\n')
	}
}

// WriteFrontMatter writes a YAML front matter block and the blank line after it.
func WriteFrontMatter(w *bytes.Buffer, title, description, url string, lastModified time.Time) {
	w.WriteString("---\n")
	enc := yaml.NewEncoder(w)
	enc.Encode(MirrorFrontMatter{Title: title, Description: description, URL: url, LastModified: lastModified})
	enc.Close()
	w.WriteString("---\n\n")
}
