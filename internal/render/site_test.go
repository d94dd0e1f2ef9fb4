package render

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// site is the loopback test site of JavaScript-built pages.
type site struct {
	*httptest.Server
	imageHits, privateHits atomic.Int64
}

const listPage = `<!doctype html><html><head><title>list</title></head><body><ul id="products"></ul>
<script>
fetch('/api/products.json').then(r => r.json()).then(ps => {
  const ul = document.getElementById('products');
  for (const p of ps) { const li = document.createElement('li'); li.className = 'product'; li.textContent = p.name + ' ' + p.price; ul.appendChild(li); }
});
</script></body></html>`

func newSite(t testing.TB) *site {
	s := &site{}
	mux := http.NewServeMux()
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		}
	}
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/list.html", html(listPage))
	mux.HandleFunc("/api/products.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"name":"Teapot","price":"12.50"},{"name":"Kettle","price":"30.00"}]`)
	})
	mux.HandleFunc("/link.html", html(`<!doctype html><html><body><script>
const a = document.createElement('a'); a.href = '/added.html'; a.textContent = 'added'; document.body.appendChild(a);
</script></body></html>`))
	mux.HandleFunc("/late.html", html(`<!doctype html><html><body><script>
window.addEventListener('load', () => setTimeout(() => { const d = document.createElement('div'); d.className = 'late'; d.textContent = 'arrived'; document.body.appendChild(d); }, 200));
</script></body></html>`))
	mux.HandleFunc("/xhr.html", html(`<!doctype html><html><body><p id="out">waiting</p><script>
Promise.allSettled([fetch('/private/secret.json'), fetch('/api/products.json'), fetch('/api/products.json')])
  .then(rs => { document.getElementById('out').textContent = rs.map(r => r.status).join(','); });
</script><iframe src="/frame.html"></iframe></body></html>`))
	mux.HandleFunc("/frame.html", html(`<!doctype html><p>frame</p>`))
	mux.HandleFunc("/private/", func(w http.ResponseWriter, _ *http.Request) {
		s.privateHits.Add(1)
		fmt.Fprint(w, `{"secret":true}`)
	})
	mux.HandleFunc("/img.html", html(`<!doctype html><html><body><img src="/img.png"><p>pictured</p></body></html>`))
	mux.HandleFunc("/img.png", func(w http.ResponseWriter, _ *http.Request) {
		s.imageHits.Add(1)
		w.Header().Set("Content-Type", "image/png")
		fmt.Fprint(w, "\x89PNG")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/list.html", http.StatusFound)
	})
	mux.HandleFunc("/hang.html", html(`<!doctype html><html><body><p id="before">before</p><script src="/hang.js"></script><p>after</p></body></html>`))
	mux.HandleFunc("/hang.js", func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // never answers: the load event never comes
	})
	mux.HandleFunc("/more.html", html(`<!doctype html><html><body><div id="items"><p class="item">1</p></div>
<button id="more" onclick="const p = document.createElement('p'); p.className = 'item'; p.textContent = document.querySelectorAll('.item').length + 1; document.getElementById('items').appendChild(p);">more</button></body></html>`))
	mux.HandleFunc("/dialogs.html", html(`<!doctype html><html><body><script>
alert('hi'); const answer = prompt('name?'); const ok = confirm('sure?');
document.body.insertAdjacentHTML('beforeend', '<p id="after">' + answer + ' ' + ok + '</p>');
</script></body></html>`))
	mux.HandleFunc("/popups.html", html(`<!doctype html><html><body><a id="blank" href="/private/blank.html" target="_blank">new tab</a><script>
window.open('/private/popup.html'); document.getElementById('blank').click();
</script><p id="done">done</p></body></html>`))
	mux.HandleFunc("/notfound.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `<!doctype html><p>gone</p><script>document.title = 'built'</script>`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// count is how many times sub occurs in s.
func count(s, sub string) int { return strings.Count(s, sub) }
