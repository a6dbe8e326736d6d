package content

import "testing"

func TestRebase(t *testing.T) {
	const from, to = "https://site.example", "https://deploy-preview-7--site.netlify.app"
	tests := []struct {
		name, src, want string
	}{
		{"path", "see https://site.example/collusion.md", "see " + to + "/collusion.md"},
		{"end of text", "at https://site.example", "at " + to},
		{"end of sentence", "Post at https://site.example. Then read https://site.example: twice.", "Post at " + to + ". Then read " + to + ": twice."},
		{"json string", `{"url": "https://site.example", "docs": "https://site.example/a?b=1#c"}`, `{"url": "` + to + `", "docs": "` + to + `/a?b=1#c"}`},
		{"markdown link", "[board](https://site.example/collusion/)", "[board](" + to + "/collusion/)"},
		{"longer host", "https://site.example.org/a and https://site.examples", "https://site.example.org/a and https://site.examples"},
		{"other port", "https://site.example:8080/a", "https://site.example:8080/a"},
		{"host with a dash", "https://site.example-2/a", "https://site.example-2/a"},
		{"subdomain", "https://notes.site.example/feed.xml", "https://notes.site.example/feed.xml"},
		{"bare host", "the board at site.example", "the board at site.example"},
		{"plain http", "http://site.example/a", "http://site.example/a"},
		{"several", "https://site.example/a https://site.example.org https://site.example/b", to + "/a https://site.example.org " + to + "/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Rebase([]byte(tt.src), from, to)); got != tt.want {
				t.Errorf("Rebase(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestRebaseUnchanged(t *testing.T) {
	src := []byte("https://site.example/a")
	if got := Rebase(src, "https://site.example", "https://site.example"); &got[0] != &src[0] {
		t.Error("the same base copied the text")
	}
	if got := Rebase(src, "https://other.example", "https://preview.example"); &got[0] != &src[0] {
		t.Error("text without the base was copied")
	}
}
