package cextract

import (
	"os"
	"strings"
)

// explainArgs lets --explain take its REGEX as the next argument, as the
// other flags take their values, while the REGEX stays optional:
//
//	--explain REGEX, --explain=REGEX  the responses whose URL matches REGEX
//	--explain                         every response (REGEX "."), when it
//	                                  ends the arguments or the next one is
//	                                  a flag, "-" or a file that exists
//
// A file named after --explain is thus still read as input: "cextract -r
// r.yml --explain in.jsonl" explains every response of in.jsonl. An empty
// REGEX is ".". Arguments after "--" are left alone. The flag itself is a
// plain string flag; explainArgs runs before the flags are parsed.
func explainArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "--explain=":
			out = append(out, "--explain=.")
		case a != "--explain":
			out = append(out, a)
		case i+1 < len(args) && explainRegex(args[i+1]) && args[i+1] != "":
			i++
			out = append(out, "--explain="+args[i])
		case i+1 < len(args) && args[i+1] == "":
			i++
			out = append(out, "--explain=.")
		default:
			out = append(out, "--explain=.")
		}
	}
	return out
}

// explainRegex reports whether arg, following --explain, is its REGEX:
// not a flag, not "-" (stdin), not a file that exists.
func explainRegex(arg string) bool {
	if strings.HasPrefix(arg, "-") {
		return false
	}
	st, err := os.Stat(arg)
	return err != nil || st.IsDir()
}
