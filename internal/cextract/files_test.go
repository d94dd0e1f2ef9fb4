package cextract

import (
	"net/url"
	"strings"
	"testing"

	"github.com/crawlutils/crawlutils/internal/cextract/filestore"
)

func TestFileURLs(t *testing.T) {
	base, _ := url.Parse("https://shop.test/catalogue/kite_1/")
	tests := []struct {
		name, data string
		fields     []string
		want       string
	}{
		{"one string", `{"img":"../../media/1.jpg"}`, []string{"img"}, "https://shop.test/media/1.jpg"},
		{"a list, in order", `{"imgs":["/a.jpg","https://cdn.test/b.png"," c.gif "]}`, []string{"imgs"}, "https://shop.test/a.jpg https://cdn.test/b.png https://shop.test/catalogue/kite_1/c.gif"},
		{"fields in the rule's order", `{"b":"/b.pdf","a":"/a.jpg"}`, []string{"a", "b"}, "https://shop.test/a.jpg https://shop.test/b.pdf"},
		{"missing field", `{"a":"/a.jpg"}`, []string{"b", "a"}, "https://shop.test/a.jpg"},
		{"not strings are left out", `{"a":[1,"/a.jpg",null,{"u":"/x"}],"b":3}`, []string{"a", "b"}, "https://shop.test/a.jpg"},
		{"blank values", `{"a":["", "  "]}`, []string{"a"}, ""},
		{"as Scrapy's Request.url", `{"a":"/média/été 1.jpg","b":"HTTPS://Shop.TEST/a.jpg#x"}`, []string{"a", "b"}, "https://shop.test/m%C3%A9dia/%C3%A9t%C3%A9%201.jpg https://shop.test/a.jpg#x"},
		{"the same URL twice stays twice", `{"a":["/a.jpg","/a.jpg"]}`, []string{"a"}, "https://shop.test/a.jpg https://shop.test/a.jpg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(fileURLs([]byte(tt.data), tt.fields, base), " ")
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFileURLProblem(t *testing.T) {
	for u, want := range map[string]string{
		"https://a.test/x.jpg":    "",
		"http://a.test/x.jpg":     "",
		"data:image/png;base64,x": "not an http or https URL",
		"ftp://a.test/x.jpg":      "not an http or https URL",
		"/x.jpg":                  "not an http or https URL",
		"https:///x.jpg":          "no host in the URL",
		"https://a.test/%zz":      "invalid URL: ",
	} {
		if got := fileURLProblem(u); !strings.HasPrefix(got, want) || (want == "") != (got == "") {
			t.Errorf("fileURLProblem(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestItemWithFiles(t *testing.T) {
	files := []filestore.File{
		{URL: "https://a.test/1.jpg?a=1&b=2", Path: "full/x.jpg", Checksum: "c", Status: filestore.Downloaded},
		{URL: "https://a.test/2.jpg", Status: filestore.Error, Error: "status 404"},
	}
	tests := []struct{ item, want string }{
		{`{"kind":"item","type":"p","data":{"t":"Kite"},"url":"https://a.test/","round":3}`,
			`{"kind":"item","type":"p","data":{"t":"Kite","files":[{"url":"https://a.test/1.jpg?a=1&b=2","path":"full/x.jpg","checksum":"c","status":"downloaded"},{"url":"https://a.test/2.jpg","status":"error","error":"status 404"}]},"url":"https://a.test/","round":3}` + "\n"},
		{`{"kind":"item","data":{}}`,
			`{"kind":"item","data":{"files":[{"url":"https://a.test/1.jpg?a=1&b=2","path":"full/x.jpg","checksum":"c","status":"downloaded"},{"url":"https://a.test/2.jpg","status":"error","error":"status 404"}]}}` + "\n"},
	}
	for _, tt := range tests {
		got, err := itemWithFiles([]byte(tt.item), files)
		if err != nil || string(got) != tt.want {
			t.Errorf("itemWithFiles(%s) =\n%s (%v), want\n%s", tt.item, got, err, tt.want)
		}
	}
	for _, bad := range []string{`{"kind":"item","data":[1]}`, `{"kind":"item","data":"x"}`, `not json`} {
		if _, err := itemWithFiles([]byte(bad), files); err == nil {
			t.Errorf("itemWithFiles(%s): no error", bad)
		}
	}
}
