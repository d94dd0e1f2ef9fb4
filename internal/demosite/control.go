package demosite

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// controlPrefix is where the site's control endpoints live; nothing links
// there, and requests there are not counted.
const controlPrefix = "/__demosite/"

// serveControl answers GET /__demosite/stats with Stats as JSON, GET
// /__demosite/linkbed with the link test bed's cases and the requests of
// each target (linkbed.go),
// POST /__demosite/reset with 204 after a Reset and POST
// /__demosite/round?n=N with 204 after SetRound(N).
func (s *Site) serveControl(w http.ResponseWriter, r *http.Request, path string) {
	var method string
	switch path {
	case controlPrefix + "stats", controlPrefix + "linkbed":
		method = http.MethodGet
	case controlPrefix + "reset", controlPrefix + "round":
		method = http.MethodPost
	default:
		notFound(w, r)
		return
	}
	if r.Method != method && !(method == http.MethodGet && r.Method == http.MethodHead) {
		allow := method
		if method == http.MethodGet {
			allow = "GET, HEAD"
		}
		w.Header().Set("Allow", allow)
		send(w, r, htmlResponse(http.StatusMethodNotAllowed, renderError(http.StatusMethodNotAllowed, "Use "+method+" here.")))
		return
	}
	if path == controlPrefix+"round" {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil || n < 0 {
			http.Error(w, "round: want ?n=N, N >= 0", http.StatusBadRequest)
			return
		}
		s.SetRound(n)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if method == http.MethodPost {
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if path == controlPrefix+"linkbed" {
		s.serveBedReport(w, r)
		return
	}
	body, err := json.Marshal(s.Stats())
	if err != nil {
		panic("demosite: encoding stats: " + err.Error())
	}
	send(w, r, &response{status: http.StatusOK, ctype: ctJSON, body: append(body, '\n')})
}
