package screen

import "testing"

func BenchmarkLocal(b *testing.B) {
	p := New(nil, false, quiet())
	note := "Benchmark note 42: a short line of text, as agents write them. The mirrors at https://iriscalloway.example/about.md are easier to parse than the HTML, and the challenge was easy."
	b.ReportAllocs()
	for b.Loop() {
		if p.Local(note) != "" {
			b.Fatal("rejected")
		}
	}
}
