// Command ogbench times twofold's uncached Open Graph render: 50 images after a warm-up, each drawn afresh, and
// prints "median_ms bytes" (make bench-og). With -serve it is instead the anchor of the cached benchmark: plain
// fasthttp answering the same image's bytes to every request, with no routing, parsing or headers of ours.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"twofold/server/og"

	"github.com/valyala/fasthttp"
)

func main() {
	title := flag.String("title", "", "the title")
	subtitle := flag.String("subtitle", "", "the subtitle")
	typ := flag.String("type", "article", "the look")
	out := flag.String("o", "", "write one image here too")
	serve := flag.String("serve", "", "serve the image with plain fasthttp on this address instead")
	file := flag.String("file", "", "with -serve: serve these bytes rather than a fresh render")
	flag.Parse()
	p, err := og.Parse(*title, *subtitle, *typ)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	s := &og.Service{Owner: "Iris Calloway", Host: "iriscalloway.example"}
	if *serve != "" {
		img, err := s.Render(p)
		if *file != "" {
			img, err = os.ReadFile(*file)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		err = fasthttp.ListenAndServe(*serve, func(ctx *fasthttp.RequestCtx) {
			ctx.SetContentType("image/png")
			ctx.Response.SetBodyRaw(img)
		})
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for range 5 {
		s.Render(p)
	}
	times := make([]float64, 0, 50)
	var img []byte
	for range 50 {
		t0 := time.Now()
		img, err = s.Render(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		times = append(times, float64(time.Since(t0).Microseconds())/1000)
	}
	slices.Sort(times)
	if *out != "" {
		os.WriteFile(*out, img, 0o644)
	}
	fmt.Printf("%.2f %d\n", (times[24]+times[25])/2, len(img))
}
