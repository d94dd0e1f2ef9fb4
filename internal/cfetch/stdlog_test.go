package cfetch

import "testing"

// TestStdLogLinesSayWhatHappened: what net/http (and its HTTP/2 client)
// logs is told in our words, without Go's type names or "err=<nil>".
func TestStdLogLinesSayWhatHappened(t *testing.T) {
	for line, want := range map[string]string{
		`Unsolicited response received on idle HTTP channel starting with "HTTP/1.1 200 OK\r\n\r\nEXTRA"; err=<nil>`: `a server sent data no request asked for, starting with "HTTP/1.1 200 OK\r\n\r\nEXTRA": its connection was closed`,
		`Unsolicited response received on idle HTTP channel starting with "x"; err=read tcp: connection reset`:       `a server sent data no request asked for, starting with "x": its connection was closed (read tcp: connection reset)`,
		`protocol error: received *http.http2HeadersFrame before a SETTINGS frame`:                                   `HTTP/2 protocol error: a server sent a HEADERS frame before a SETTINGS frame`,
		`Transport: unhandled response frame type *http.http2PushPromiseFrame`:                                       `HTTP/2: a server sent an unexpected PUSH_PROMISE frame`,
		`http2: Transport received unsolicited DATA frame; closing connection`:                                       `HTTP/2: a server sent a DATA frame no request asked for: its connection was closed`,
		`protocol error: received DATA after END_STREAM`:                                                             `HTTP/2 protocol error: a server sent DATA after END_STREAM`,
		`protocol error: received DATA before a HEADERS frame`:                                                       `HTTP/2 protocol error: a server sent DATA before a HEADERS frame`,
		`Error enabling Transport HTTP/2 support: boom`:                                                              `HTTP/2 is off: boom`,
		`net/http: invalid byte '"' in Cookie.Value; dropping invalid bytes`:                                         `invalid byte '"' in a cookie value; dropping invalid bytes`,
		`something else entirely`: `something else entirely`,
	} {
		if got := translateStdLog(line); got != want {
			t.Errorf("translateStdLog(%q)\n got %q\nwant %q", line, got, want)
		}
	}
}
