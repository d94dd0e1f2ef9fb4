package cextract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/crawlutils/crawlutils/internal/childproc"
)

// fetchOnce fetches url with cfetch — the program itself, found as
// childproc finds the crawl's tools, run with args (cfetch's flags; its
// environment variables and config file apply as always) — and returns
// its response record. A fetch that failed is an error naming the URL.
func fetchOnce(ctx context.Context, url string, args []string, stderr io.Writer) (*sample, error) {
	path, err := childproc.Find("cfetch")
	if err != nil {
		return nil, fmt.Errorf("fetching %s: cfetch: %v (install it next to cextract or on PATH)", url, err)
	}
	cmd := exec.CommandContext(ctx, path, append([]string{"-q"}, args...)...)
	childproc.DieWithParent(cmd)
	cmd.Stdin = strings.NewReader(url + "\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = stderr
	runErr := cmd.Run()
	s, err := readSample(url, &out)
	if err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("fetching %s: cfetch: %v", url, runErr)
		}
		return nil, fmt.Errorf("fetching %s: %v", url, err)
	}
	var probe struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	_ = json.Unmarshal(s.raw, &probe)
	if probe.Error != "" {
		return nil, fmt.Errorf("fetching %s: %s", url, probe.Error)
	}
	return s, nil
}
