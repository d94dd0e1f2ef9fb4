package monitor

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The server's defences, in the order a request meets them:
//
//   - every answer carries a Content-Security-Policy that allows only the
//     server's own script and style files (no inline script, no eval, no
//     frames, no form posts), X-Content-Type-Options: nosniff, no referrer,
//     and no caching of the API;
//   - on a loopback address, a request must name a loopback host (Host
//     127.0.0.1:8077, localhost:8077, [::1]:8077): a page of another site
//     whose name was made to resolve to 127.0.0.1 (DNS rebinding) cannot
//     read the API;
//   - off loopback, the token is required for everything under /api/ (the
//     page itself holds no data and asks for the token);
//   - an action is a POST with Content-Type application/json, a body of at
//     most maxBody bytes, from no other origin (Sec-Fetch-Site or Origin:
//     net/http's CrossOriginProtection) — so no HTML form of another site
//     can post one — and only with --allow-control and the token, compared
//     in constant time.

// maxBody bounds an action's request body.
const maxBody = 4 << 10

// contentSecurityPolicy allows the page's own files and nothing else.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'"

// IsLoopback reports whether the host of addr (host:port) is a loopback
// address or "localhost": only local users can reach a server listening
// there. An empty host (":8077") listens on every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckOptions checks the settings the server refuses to start with, with
// messages naming the flags: a non-loopback listen address without a
// token, control without a token.
func CheckOptions(listen, token string, allowControl bool) error {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return fmt.Errorf("--listen %q: want HOST:PORT (e.g. 127.0.0.1:8077)", listen)
	}
	if !IsLoopback(listen) && token == "" {
		return fmt.Errorf("--listen %s is not a loopback address: anyone who can reach it could read the crawl; give --token (or CQUEUE_SERVE_TOKEN), which every request must then carry, or listen on 127.0.0.1", listen)
	}
	if allowControl && token == "" {
		return fmt.Errorf("--allow-control needs --token (or CQUEUE_SERVE_TOKEN): actions must carry it")
	}
	return nil
}

// secure wraps every answer of the server.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if s.loopback && !loopbackHost(r.Host) {
			writeError(w, http.StatusMisdirectedRequest, "bad_host",
				"this server listens on loopback and answers only requests addressed to a loopback host (127.0.0.1, localhost, [::1])")
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			h.Set("Cache-Control", "no-store")
			if s.tokenForReads && !s.authorized(r) {
				unauthorized(w)
				return
			}
			// A query that does not parse (?crawlid=%zz) is refused, not
			// read as no filter (every crawl).
			if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
				writeError(w, http.StatusBadRequest, "bad_request", "the query does not parse: "+err.Error())
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names a loopback host.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// authorized reports whether r carries the token: "Authorization: Bearer
// TOKEN", compared in constant time (of their digests, so not even the
// length shows).
func (s *Server) authorized(r *http.Request) bool {
	if s.token == "" {
		return false
	}
	// RFC 7235: the scheme is case-insensitive ("bearer" too), then one
	// or more spaces.
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got = strings.TrimLeft(got, " ")
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(s.token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="cqueue serve"`)
	writeError(w, http.StatusUnauthorized, "unauthorized", "this needs the server's token: Authorization: Bearer TOKEN")
}

// action guards a control action: control allowed, the token, a JSON body
// of bounded size, no cross-origin request. The body is decoded into
// req.
func (s *Server) action(fn func(w http.ResponseWriter, r *http.Request)) http.Handler {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowControl {
			writeError(w, http.StatusForbidden, "control_disabled", "this server was started without --allow-control: it only reads")
			return
		}
		if !s.authorized(r) {
			unauthorized(w)
			return
		}
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			writeError(w, http.StatusUnsupportedMediaType, "bad_content_type", "an action's body must be JSON: Content-Type: application/json")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		fn(w, r)
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusForbidden, "cross_origin", "cross-origin requests cannot act on the crawl")
	}))
	return cop.Handler(h)
}
