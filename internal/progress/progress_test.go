package progress

import (
	"sync"
	"testing"
)

// Counts read while many goroutines count never go backwards, and done
// never exceeds found.
func TestCountsOnlyRise(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				c.Found(2)
				c.Done(1)
				c.Done(1)
			}
		}()
	}
	stop := make(chan struct{})
	bad := make(chan string, 1)
	go func() {
		var lastDone, lastFound int64
		for {
			select {
			case <-stop:
				close(bad)
				return
			default:
			}
			done, found := c.Counts()
			if done < lastDone || found < lastFound || done > found {
				bad <- "counts went backwards or done passed found"
				return
			}
			lastDone, lastFound = done, found
		}
	}()
	wg.Wait()
	close(stop)
	if msg, ok := <-bad; ok {
		t.Fatal(msg)
	}
	if done, found := c.Counts(); done != 16000 || found != 16000 {
		t.Errorf("Counts = %d/%d", done, found)
	}
	var nilCounter *Counter
	nilCounter.Found(1)
	nilCounter.Done(1)
	if d, f := nilCounter.Counts(); d != 0 || f != 0 {
		t.Error("a nil counter counted")
	}
}
