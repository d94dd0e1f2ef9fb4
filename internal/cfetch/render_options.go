package cfetch

import (
	"fmt"
	"os"
	"strings"

	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/render"
)

// RenderOptions are the settings of pages loaded in a browser
// (--render and the request field "render"): the renderer's own, and
// whether every request is rendered.
type RenderOptions struct {
	// All renders every request (--render); otherwise only those whose
	// record has "render": true.
	All bool
	render.Options
}

// renderFlags are the --render-* flags read as text, until apply.
type renderFlags struct {
	wait, block, script string
}

func (c *command) defineRender(f *cli.Flags) {
	r := &c.opts.Render
	f.BoolVar(&r.All, "render", false, "load every request in headless Chromium and write the DOM after load as the body (\"rendered\":true); a request with \"render\":true is rendered without it")
	f.StringVar(&r.Browser, "browser", "", "`PATH` of the Chromium (or Chrome) to render with; default: chromium-headless-shell (less than half the CPU a page), chrome-headless-shell, chromium, chromium-browser or google-chrome on PATH")
	f.StringVar(&c.render.wait, "render-wait", "load", "when the DOM is taken: load (the load event), idle (then no request in flight for 500ms), css:SELECTOR (then an element matches), or a duration after load such as 2s")
	f.DurationVar(&r.Timeout, "render-timeout", r.Timeout, "longest wait for a rendered page; then the DOM so far is taken and the record says \"render_timeout\":true")
	f.StringVar(&c.render.script, "render-script", "", "JavaScript `FILE` run in each rendered page once loaded (awaited if it returns a promise), before the DOM is taken: scroll, click \"more\"")
	f.StringVar(&r.ScreenshotDir, "render-screenshot", "", "write a PNG of each rendered page to `DIR`/<hash of the URL>.png, named in \"screenshot_path\"")
	f.StringVar(&c.render.block, "render-block", strings.Join(r.Block, ","), "kinds of request a rendered page may not make: none, or some of "+strings.Join(render.BlockKinds(), ","))
	f.IntVar(&r.Concurrency, "render-concurrency", r.Concurrency, "pages rendered at once (browser tabs), in one browser process")
	f.Var(sizeValue{&r.MaxMemory}, "render-max-memory", "most memory the browser's processes may hold together (proportional set size, measured as pages end, at most once a second); past it, the browser is restarted once its pages in flight have ended; 0: no limit")
}

// applyRender reads the --render-* flags that need parsing.
func (c *command) applyRender() error {
	r := &c.opts.Render
	w, err := render.ParseWait(c.render.wait)
	if err != nil {
		return cli.Usagef("--render-wait: %v", err)
	}
	r.Wait = w
	if r.Block, err = render.ParseBlock(c.render.block); err != nil {
		return cli.Usagef("--render-block: %v", err)
	}
	if c.render.script != "" {
		b, err := os.ReadFile(c.render.script)
		if err != nil {
			return cli.Usagef("--render-script: %v", err)
		}
		r.Script = string(b)
	}
	return nil
}

// validate checks the render settings; its errors name the flag.
func (r *RenderOptions) validate() error {
	if r.Concurrency == 0 && r.Timeout == 0 && !r.All {
		return nil // the zero value: the defaults apply if a request asks for a browser
	}
	if err := r.Options.Validate(); err != nil {
		return err
	}
	if r.All {
		if _, err := render.FindBrowser(r.Browser); err != nil {
			return fmt.Errorf("--render: %v", err)
		}
	}
	return nil
}
