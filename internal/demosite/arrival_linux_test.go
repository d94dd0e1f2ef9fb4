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

// TestArrivalBeforeAccept: a request whose bytes reached the machine
// before the site accepted its connection (a loaded machine) still has its
// kernel arrival time.
func TestArrivalBeforeAccept(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	al := ArrivalListener(ln) // the option set before anything arrives
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	got := make(chan bool, 1)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, ok := arrivalTime(r.Context())
			got <- ok
		}),
		ConnContext: ArrivalContext,
	}
	go srv.Serve(al) // accepted only now
	defer srv.Close()
	if !<-got {
		t.Fatal("no kernel arrival time for a request sent before its connection was accepted")
	}
}
