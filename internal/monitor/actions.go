package monitor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/crawlutils/crawlutils/internal/frontier"
)

// The actions are those of cqueue stop and cqueue expire, through the same
// frontier calls, and pause/resume, which set the crawl's MetaPaused. Each
// answers with the record its cqueue subcommand writes, and has the
// sampler look again at once.

// actionBody is what an action's JSON body may hold.
type actionBody struct {
	CrawlID *string `json:"crawlid"`
}

// decode reads an action's body; needCrawl requires a non-empty crawlid.
func decode(w http.ResponseWriter, r *http.Request, needCrawl bool) (string, bool) {
	var b actionBody
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(&b)
	if errors.Is(err, io.EOF) {
		err = nil // an empty body is {}
	} else if err == nil {
		if _, more := dec.Token(); !errors.Is(more, io.EOF) {
			err = errors.New("more after the JSON object")
		}
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "the body is larger than 4 KiB")
		return "", false
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_request", "the body must be a JSON object like {\"crawlid\":\"shop\"}: "+err.Error())
		return "", false
	case needCrawl && (b.CrawlID == nil || *b.CrawlID == ""):
		writeError(w, http.StatusBadRequest, "bad_request", "crawlid is required: {\"crawlid\":\"shop\"}")
		return "", false
	}
	if b.CrawlID == nil {
		return "", true
	}
	return *b.CrawlID, true
}

// sampleSoon has the sample loop look again now.
func (s *Server) sampleSoon() {
	select {
	case s.resample <- struct{}{}:
	default:
	}
}

// known answers 404 unknown_crawl, and false, when the frontier does not
// know crawl id: an action on a mistyped name would record a stop or a
// pause that no crawl meets but a later crawl of that name (cqueue stop
// refuses it so too).
func (s *Server) known(w http.ResponseWriter, r *http.Request, id, what string) bool {
	known, err := frontier.CrawlKnown(r.Context(), s.fr, id)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", err.Error())
		return false
	}
	if !known {
		writeError(w, http.StatusNotFound, "unknown_crawl", fmt.Sprintf("no crawl %q in this frontier: nothing to %s (GET /api/v1/crawls lists them)", id, what))
	}
	return known
}

func (s *Server) actStop(w http.ResponseWriter, r *http.Request) {
	id, ok := decode(w, r, true)
	if !ok || !s.known(w, r, id, "stop") {
		return
	}
	n, kept, err := frontier.StopCrawl(r.Context(), s.fr, id, s.now())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", err.Error())
		return
	}
	s.sampleSoon()
	answer := map[string]any{"kind": "stop", "crawlid": id, "purged": n}
	if kept {
		answer["kept"] = true
	}
	writeJSON(w, http.StatusOK, answer)
}

// expiredJSON is cqueue expire's record.
type expiredJSON struct {
	Kind string `json:"kind"`
	frontier.Expired
}

func (s *Server) actExpire(w http.ResponseWriter, r *http.Request) {
	if _, ok := decode(w, r, false); !ok {
		return
	}
	es, err := s.fr.Expire(r.Context(), s.now())
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "store", err.Error())
		return
	}
	out := []expiredJSON{}
	for _, e := range es {
		out = append(out, expiredJSON{"expired", e})
	}
	s.sampleSoon()
	writeJSON(w, http.StatusOK, map[string]any{"expired": out})
}

func (s *Server) actPause(pause bool) func(w http.ResponseWriter, r *http.Request) {
	kind, value := "resume", "0"
	if pause {
		kind, value = "pause", "1"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := decode(w, r, true)
		if !ok || !s.known(w, r, id, kind) {
			return
		}
		at := ""
		if pause {
			at = s.now().UTC().Format(time.RFC3339)
		}
		if _, err := s.fr.SetCrawlMeta(r.Context(), id, map[string]string{frontier.MetaPaused: value, frontier.MetaPausedAt: at}, true); err != nil {
			writeError(w, http.StatusServiceUnavailable, "store", err.Error())
			return
		}
		s.sampleSoon()
		writeJSON(w, http.StatusOK, map[string]any{"kind": kind, "crawlid": id, "paused": pause})
	}
}
