package demosite

import (
	"encoding/json"
	"net/http"
)

// controlPrefix is where the site's control endpoints live; nothing links
// there, and requests there are not counted.
const controlPrefix = "/__demosite/"

// serveControl answers GET /__demosite/stats with Stats as JSON and
// POST /__demosite/reset with 204 after a Reset.
func (s *Site) serveControl(w http.ResponseWriter, r *http.Request, path string) {
	var method string
	switch path {
	case controlPrefix + "stats":
		method = http.MethodGet
	case controlPrefix + "reset":
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
	if method == http.MethodPost {
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	body, err := json.Marshal(s.Stats())
	if err != nil {
		panic("demosite: encoding stats: " + err.Error())
	}
	send(w, r, &response{status: http.StatusOK, ctype: ctJSON, body: append(body, '\n')})
}
