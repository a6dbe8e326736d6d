package apitest

import (
	"sync"
	"sync/atomic"
)

// InParallel runs f for 0 to n-1 on workers goroutines and returns when every call has.
func InParallel(n, workers int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}
