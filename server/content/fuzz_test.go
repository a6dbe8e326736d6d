package content

import "testing"

// Front matter comes from editors: parsing never panics, and an accepted page has a title and a description.
func FuzzParsePage(f *testing.F) {
	for _, s := range []string{"---\ntitle: T\ndescription: D\n---\nBody", "---\n---\n", "---\ntitle: [\n---\n", "# no front matter", "---\ntitle: T\ndescription: D\nlastModified: 2026-01-01\n---\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ParsePage("p.md", "p", []byte(src))
		if err == nil && (p.Title == "" || p.Description == "" || p.BodyLine < 1) {
			t.Fatalf("accepted %q as %+v", src, p)
		}
	})
}
