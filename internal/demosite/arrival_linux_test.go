package demosite

import (
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestArrivalListener: served through ArrivalListener, the site takes a
// request's arrival from the kernel: a time between the client's send and
// the handler's start, on every request of a kept-alive connection.
func TestArrivalListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		at, handler time.Time
		ok          bool
	}
	got := make(chan seen, 3)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			at, ok := arrivalTime(r.Context())
			got <- seen{at, time.Now(), ok}
			io.WriteString(w, "ok")
		}),
		ConnContext: ArrivalContext,
	}
	go srv.Serve(ArrivalListener(ln))
	defer srv.Close()
	c := &http.Client{}
	for i := range 3 {
		sent := time.Now()
		resp, err := c.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		s := <-got
		if !s.ok {
			t.Fatalf("request %d: no kernel arrival time", i)
		}
		// Wall clock readings: allow the kernel's clock a millisecond.
		if s.at.Before(sent.Add(-time.Millisecond)) || s.at.After(s.handler.Add(time.Millisecond)) {
			t.Errorf("request %d: arrival %s, sent %s, handled %s", i, s.at.Format(time.StampMicro), sent.Format(time.StampMicro), s.handler.Format(time.StampMicro))
		}
	}
}
