package cextract

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"regexp"
	"time"

	"github.com/crawlutils/crawlutils/internal/cextract/filestore"
	"github.com/crawlutils/crawlutils/internal/cextract/rules"
	"github.com/crawlutils/crawlutils/internal/cli"
	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/crawlutils/crawlutils/internal/record"
)

// Command returns the cextract command, for cli.Main or cli.Execute.
func Command() *cli.Command {
	o := &Options{}
	return &cli.Command{
		Name:    "cextract",
		Help:    help,
		Flags:   o.define,
		Rewrite: explainArgs,
		Run:     o.run,
		Check: func(env *cli.Env) error {
			if o.Check != "" || o.Test != "" || o.Shell != "" {
				return o.checkSession()
			}
			o.Files = env.Args
			if _, err := o.compile(); err != nil {
				return usageError(env.Tool, err)
			}
			return nil
		},
	}
}

// run is the cextract command, its flags parsed into o.
func (o *Options) run(ctx context.Context, env *cli.Env) error {
	tool, files := env.Tool, env.Args
	o.Files = files
	if o.Check != "" {
		return check(tool, o.Check)
	}
	if o.Test != "" || o.Shell != "" {
		return o.runSession(ctx, env)
	}
	x, err := o.compile()
	if err != nil {
		return usageError(tool, err)
	}
	var explain *explainer
	if o.Explain != "" {
		re, err := regexp.Compile(o.Explain)
		if err != nil {
			return cli.Usagef("--explain %q: %v", o.Explain, err)
		}
		explain = &explainer{only: re, file: o.Rules}
	}
	out, err := env.Output()
	if err != nil {
		return err
	}
	tool.DrainOnInterrupt = env.DrainsOnInterrupt(files)
	w := ndjson.NewWriter(out)
	p := &processor{tool: tool, w: w, x: x, explain: explain, unchanged: o.Unchanged, ctx: ctx}
	if o.FilesDir != "" && explain == nil {
		p.files = &filestore.Store{Dir: o.FilesDir, Expires: o.FilesExpires}
	}
	if explain == nil {
		// A leased response it cannot read is still answered, so that the
		// crawl loop settles it (dead, with the reason) and ends.
		tool.LeasePath = []string{"request", "lease"}
		tool.Answer = func(ack []byte) { p.write(ack) }
	}
	if explain != nil {
		explain.w = out
	}
	var rejectsFile *os.File
	if o.Rejects != "" {
		if rejectsFile, err = os.Create(o.Rejects); err != nil {
			return fmt.Errorf("--rejects: %w", err)
		}
		p.rejects = ndjson.NewWriter(rejectsFile)
	}
	var failuresFile *os.File
	if o.Failures != "" && explain == nil {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if o.FailuresAdd {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		if failuresFile, err = os.OpenFile(o.Failures, flags, 0o666); err != nil {
			return fmt.Errorf("--failures: %w", err)
		}
		p.failures = ndjson.NewWriter(failuresFile)
	}
	if o.WARCOutlinks != "" && explain == nil {
		if p.outlinks, err = openOutlinks(o.WARCOutlinks); err != nil {
			return err
		}
	}
	tool.StartProgress(time.Second, nil)
	flush := func() {
		if err := w.Flush(); err != nil {
			p.failOutput(err)
		}
		if p.rejects != nil {
			if err := p.rejects.Flush(); err != nil {
				p.failWrite(fmt.Errorf("--rejects: %w", err))
			}
		}
		if p.failures != nil {
			if err := p.failures.Flush(); err != nil {
				p.failWrite(fmt.Errorf("--failures: %w", err))
			}
		}
	}
	for line, rec := range records(ctx, tool, ndjson.NewReader(files, env.Stdin), flush) {
		if !p.handle(line, rec.Envelope, rec.fields) {
			break
		}
	}
	flush()
	p.reportMissing()
	if explain != nil && explain.errOut != nil {
		p.failWrite(explain.errOut)
	}
	if rejectsFile != nil {
		if err := rejectsFile.Close(); err != nil {
			tool.Fail(fmt.Errorf("--rejects: %w", err))
		}
	}
	if failuresFile != nil {
		if err := failuresFile.Close(); err != nil {
			tool.Fail(fmt.Errorf("--failures: %w", err))
		}
	}
	if p.outlinks != nil {
		if err := p.outlinks.close(); err != nil {
			tool.Fail(err)
		}
	}
	if err := env.CloseOutput(); err != nil {
		tool.Fail(err)
	}
	return tool.Done(ctx)
}

// usageError reports a usage error; a rules file's errors one per line.
func usageError(tool *cli.Tool, err error) error {
	var es rules.Errors
	if errors.As(err, &es) && len(es) > 1 {
		for _, e := range es[:len(es)-1] {
			tool.Printf("%v", e)
		}
		err = es[len(es)-1]
	}
	return cli.Usagef("%v", err)
}

// check validates a rules file: the structure, the regular expressions, the
// processors and every selector. Exit 0 when it is valid, 2 otherwise.
func check(tool *cli.Tool, name string) error {
	x, err := loadRules(name)
	if err != nil {
		var es rules.Errors
		if errors.As(err, &es) {
			for _, e := range es {
				tool.Printf("%v", e)
			}
			tool.Printf("%s: %d error(s)", name, len(es))
			return cli.Exit(cli.ExitUsage)
		}
		tool.Printf("%v", err)
		return cli.Exit(cli.ExitUsage)
	}
	tool.Printf("%s: ok (%d item rule(s), %d link rule(s), %d sitemap rule(s))", name, len(x.items), len(x.links), len(x.sitemaps))
	return nil
}

// classified is a record with its top-level fields when they were scanned.
type classified struct {
	record.Envelope
	fields []record.Field
}

// records is cli.Tool.Records with record.ParseFields for JSON objects:
// it yields each record with its top-level fields when they were scanned.
func records(ctx context.Context, t *cli.Tool, r *ndjson.Reader, flush func()) iter.Seq2[ndjson.Line, classified] {
	return cli.RecordsFunc(ctx, t, r, flush, func(line []byte) (classified, error) {
		env, fields, err := record.ParseFields(line)
		return classified{env, fields}, err
	})
}
