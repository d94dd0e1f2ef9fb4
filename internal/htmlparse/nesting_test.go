package htmlparse

import "testing"

func TestLimitNesting(t *testing.T) {
	got := limitNesting(`<div><p>a<span>b</span></p><br><img src=x></div></div></em>tail`, 2)
	want := `<div><p>a</p><span>b</span><br><img src=x></div>tail`
	if got != want {
		t.Fatalf("limitNesting =\n%s\nwant\n%s", got, want)
	}
}

func TestTextOnly(t *testing.T) {
	if got := textOnly(`<div>a &amp; <b>b</b><script>x<y</script></div>`); got != "a &amp; bx&lt;y" {
		t.Fatalf("textOnly = %q", got)
	}
}
