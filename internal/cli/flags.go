package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/crawlutils/crawlutils/internal/ndjson"
	"github.com/goccy/go-yaml"
	"github.com/spf13/pflag"
)

// Version is the crawlutils release, set at build time with
// -ldflags "-X github.com/crawlutils/crawlutils/internal/cli.Version=…".
var Version = ""

func init() {
	if Version != "" {
		return
	}
	Version = "0.1.0-dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		Version = strings.TrimPrefix(bi.Main.Version, "v")
	}
}

// Help is the text of a command's --help, around the flag list.
type Help struct {
	Usage       string // "cfetch [flags] [FILE...]"
	Summary     string // one line: what the command does
	Description string // paragraphs after the usage line
	Examples    string // indented shell examples
	// Output replaces the help text of -o/--output when not empty.
	Output string
	// ExitCodes are more rows of the exit-status table, for statuses of
	// the command's own ("  141  …").
	ExitCodes string
}

// Flags is a command's flag set with the flags every command shares:
// -o/--output, -q/--quiet, --stats, --config, -h/--help, --version.
type Flags struct {
	*pflag.FlagSet
	Output string

	tool        *Tool
	help        Help
	quiet       bool
	statsFile   string
	statsEvery  time.Duration
	statsTo     string
	statsCrawl  string
	config      string
	args        map[string]bool // the flags the command line set
	showHelp    bool
	showVersion bool
}

// NewFlags returns the flag set for t, with the shared flags defined. The
// command adds its own before calling Parse.
func (t *Tool) NewFlags(h Help) *Flags {
	fs := pflag.NewFlagSet(t.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	f := &Flags{FlagSet: fs, tool: t, help: h}
	return f
}

func (f *Flags) addCommon() {
	out := f.help.Output
	if out == "" {
		out = "write records to `FILE` instead of stdout"
	}
	f.StringVarP(&f.Output, "output", "o", "", out)
	f.BoolVarP(&f.quiet, "quiet", "q", false, "no progress line and no summary on stderr (errors are still shown)")
	f.StringVar(&f.statsFile, "stats", "", "write the run's stats as JSON to `FILE`")
	f.DurationVar(&f.statsEvery, "stats-every", 0, "with --stats, also rewrite FILE every `DURATION` while the command runs (atomically: a reader never sees half of it); 0: only at the end. With --stats-to, publish that often (at least 100ms; 0: every 5s)")
	f.StringVar(&f.statsTo, "stats-to", "", "publish the stats to the crawl's `STORE` for cqueue serve: the frontier's SQLite file or Redis URL (or $CRAWLUTILS_STATS_TO)")
	f.StringVar(&f.statsCrawl, "stats-crawlid", "", "with --stats-to, the crawl `ID` the stats are published for (or $CRAWLUTILS_STATS_CRAWLID)")
	f.StringVar(&f.config, "config", "", "read default settings from `FILE` (YAML; default $CRAWLUTILS_CONFIG or ~/.config/crawlutils/config.yml)")
	f.BoolVarP(&f.showHelp, "help", "h", false, "show this help")
	f.BoolVar(&f.showVersion, "version", false, "show the version")
}

// Parse parses args. Settings not given as flags come from the environment
// (CFETCH_CONCURRENCY for cfetch's --concurrency), then from the config
// file's section for the command, then the defaults. When done is true the
// command must return code at once (help, version or a usage error).
func (f *Flags) Parse(args []string, stdout io.Writer) (rest []string, code int, done bool) {
	rest, err := f.parse(args, stdout)
	if err != nil {
		return nil, report(f.tool, err), true
	}
	return rest, ExitOK, false
}

// parse is Parse returning errors: a usage error, or errStop after
// --help or --version.
func (f *Flags) parse(args []string, stdout io.Writer) (rest []string, err error) {
	f.addCommon()
	if err := f.FlagSet.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			f.printHelp(stdout)
			return nil, errStop
		}
		return nil, Usagef("%s", f.withSuggestion(err.Error()))
	}
	if f.showHelp {
		f.printHelp(stdout)
		return nil, errStop
	}
	if f.showVersion {
		fmt.Fprintf(stdout, "%s %s (crawlutils)\n", f.tool.Name, Version)
		return nil, errStop
	}
	f.args = map[string]bool{}
	f.Visit(func(fl *pflag.Flag) { f.args[fl.Name] = true })
	if err := f.applyEnv(); err != nil {
		return nil, Usagef("%v", err)
	}
	if err := f.applyConfig(); err != nil {
		return nil, Usagef("%v", err)
	}
	if f.statsEvery < 0 {
		return nil, Usagef("--stats-every %s: must not be negative", f.statsEvery)
	}
	f.tool.Quiet = f.quiet
	f.tool.StatsFile = f.statsFile
	f.tool.StatsEvery = f.statsEvery
	f.tool.StatsTo, f.tool.StatsCrawlID = f.statsTo, f.statsCrawl
	return f.Args(), nil
}

var notSettable = map[string]bool{"help": true, "version": true, "config": true}

// EnvName is the environment variable that sets flag name of tool.
func EnvName(tool, flag string) string {
	return strings.ToUpper(strings.ReplaceAll(tool+"_"+flag, "-", "_"))
}

// SharedSettings are the flags a subcommand also takes from its command's
// own environment variable and config section (CQUEUE_DB, cqueue: {db: …}),
// because every subcommand means the same by them.
var SharedSettings = map[string]bool{"db": true, "redis": true, "busy-timeout": true, "quiet": true}

// crawlSettings are the flags every command also takes from one variable
// of the whole crawl, after its own (CFETCH_STATS_TO, then
// CRAWLUTILS_STATS_TO): a hand-built loop sets them once for all.
var crawlSettings = map[string]string{"stats-to": "CRAWLUTILS_STATS_TO", "stats-crawlid": "CRAWLUTILS_STATS_CRAWLID"}

// envNames are the variables that may set flag, first the one that wins:
// the subcommand's own (CQUEUE_PUSH_BATCH), then, for a shared setting,
// the command's (CQUEUE_DB).
func (f *Flags) envNames(flag string) []string {
	var names []string
	if f.tool.Sub == "" {
		names = []string{EnvName(f.tool.Name, flag)}
	} else {
		names = []string{EnvName(f.tool.Name+"_"+f.tool.Sub, flag)}
		if SharedSettings[flag] {
			names = append(names, EnvName(f.tool.Name, flag))
		}
	}
	if v, ok := crawlSettings[flag]; ok {
		names = append(names, v)
	}
	return names
}

// section is the name of the flags' config section, for messages.
func (f *Flags) section() string {
	if f.tool.Sub == "" {
		return f.tool.Name
	}
	return f.tool.Name + "." + f.tool.Sub
}

func (f *Flags) applyEnv() error {
	var err error
	f.VisitAll(func(fl *pflag.Flag) {
		if err != nil || fl.Changed || notSettable[fl.Name] {
			return
		}
		for _, name := range f.envNames(fl.Name) {
			if v := f.tool.getenv(name); v != "" {
				if e := f.Set(fl.Name, v); e != nil {
					err = fmt.Errorf("environment %s=%q: %v", name, v, e)
				}
				return
			}
		}
	})
	return err
}

// OnCommandLine reports whether the command line set flag, as opposed to
// the environment, the config file or its default: a setting of one
// format (cexport's --csv-delimiter) from the environment or the config
// file is a default for that format, one on the command line is asked of
// this run.
func (f *Flags) OnCommandLine(flag string) bool { return f.args[flag] }

// fromEnv reports whether a variable sets flag.
func (f *Flags) fromEnv(flag string) bool {
	for _, name := range f.envNames(flag) {
		if f.tool.getenv(name) != "" {
			return true
		}
	}
	return false
}

func (f *Flags) configPath() (path string, explicit bool) {
	if f.config != "" {
		return f.config, true
	}
	if p := f.tool.getenv("CRAWLUTILS_CONFIG"); p != "" {
		return p, true
	}
	dir := userConfigDir(f.tool.getenv)
	if dir == "" {
		return "", false
	}
	return filepath.Join(dir, "crawlutils", "config.yml"), false
}

// userConfigDir is the directory of user config files, as getenv tells:
// $XDG_CONFIG_HOME (when absolute), else $HOME/.config; "" when neither
// is set, so that a command with no environment reads no config file.
func userConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return d
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return ""
}

// applyConfig reads the command's section of the YAML config file:
//
//	cfetch:
//	  concurrency: 32
//	  user-agent: "mybot/1.0"
func (f *Flags) applyConfig() error {
	path, explicit := f.configPath()
	if path == "" {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && (errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			return nil
		}
		return fmt.Errorf("config: %v", err)
	}
	var doc map[string]map[string]any
	if err := yaml.Unmarshal(ndjson.TrimBOM(data), &doc); err != nil {
		return fmt.Errorf("config %s: %v", path, err)
	}
	section := doc[f.tool.Name]
	if f.tool.Sub == "" {
		return f.applySection(path, section, false)
	}
	// A subcommand's own section (cqueue: {push: {batch: 100}}) wins over
	// the shared settings of its command's (cqueue: {db: crawl.db}); the
	// command's other keys belong to other subcommands.
	own, _ := section[f.tool.Sub].(map[string]any)
	if section[f.tool.Sub] != nil && own == nil {
		return fmt.Errorf("config %s: %s: want a section of settings", path, f.section())
	}
	for key, val := range section {
		if _, sub := val.(map[string]any); !sub && !SharedSettings[key] {
			return fmt.Errorf("config %s: %s.%s: not a setting every %s subcommand takes: put it in the section of the subcommand it is for (%s: {%s: {%s: …}})",
				path, f.tool.Name, key, f.tool.Name, f.tool.Name, f.tool.Sub, key)
		}
	}
	if err := f.applySection(path, own, false); err != nil {
		return err
	}
	return f.applySection(path, section, true)
}

// applySection sets the flags a config section names, unless a flag or an
// environment variable set them already. sharedOnly applies only the
// shared settings, and skips the rest (they are other subcommands').
func (f *Flags) applySection(path string, section map[string]any, sharedOnly bool) error {
	for key, val := range section {
		if sharedOnly && !SharedSettings[key] {
			continue
		}
		name := f.section() + "." + key
		if sharedOnly {
			name = f.tool.Name + "." + key
		}
		fl := f.Lookup(key)
		if fl == nil || notSettable[key] {
			if sharedOnly {
				continue
			}
			hint := ""
			if best := f.closest(key); best != "" && !notSettable[best] {
				hint = fmt.Sprintf(" (did you mean %s?)", best)
			}
			return fmt.Errorf("config %s: %s: unknown setting%s", path, name, hint)
		}
		if fl.Changed || f.fromEnv(key) {
			continue
		}
		values := []any{val}
		if list, ok := val.([]any); ok {
			values = list
		}
		for _, v := range values {
			if err := f.Set(key, fmt.Sprint(v)); err != nil {
				return fmt.Errorf("config %s: %s: %v", path, name, err)
			}
		}
	}
	return nil
}

func (f *Flags) printHelp(w io.Writer) {
	h := f.help
	fmt.Fprintf(w, "%s - %s\n\nUsage: %s\n", f.tool.Name, h.Summary, h.Usage)
	if h.Description != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(h.Description, "\n"))
	}
	fmt.Fprintf(w, "\nFlags:\n%s", f.FlagUsagesWrapped(100))
	if f.tool.Sub == "" {
		fmt.Fprintf(w, "\nEvery flag can also be set with the environment variable %s_<FLAG> (e.g. %s)\nor in the %q section of the config file.\n",
			strings.ToUpper(f.tool.Name), EnvName(f.tool.Name, "quiet"), f.tool.Name)
	} else {
		fmt.Fprintf(w, "\nEvery flag can also be set with the environment variable %s_<FLAG> (e.g. %s)\nor in the config file's section %s: {%s: {…}}; --db, --redis and --busy-timeout also with\n%s_DB, … and in the %s section itself, for every subcommand.\n",
			strings.ToUpper(f.tool.Name+"_"+f.tool.Sub), EnvName(f.tool.Name+"_"+f.tool.Sub, "quiet"), f.tool.Name, f.tool.Sub,
			strings.ToUpper(f.tool.Name), f.tool.Name)
	}
	if h.Examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(h.Examples, "\n"))
	}
	fmt.Fprintf(w, "\n%s\n", ExitCodesHelp)
	if h.ExitCodes != "" {
		fmt.Fprintf(w, "%s\n", strings.TrimRight(h.ExitCodes, "\n"))
	}
}
