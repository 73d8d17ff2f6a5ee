// Package cli holds what the bot's subcommands share: flag sets that print
// their usage, exit codes, the data directory and how the admin commands
// find the store.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// NewFlagSet is the flag set of a subcommand, name as typed ("bot sql").
// Its usage is the lines given, then the flags; ParseFlags sends it to
// stdout for -h and --help, and to stderr after the error for a bad flag.
// Calling fs.Usage() directly prints it to stderr.
func NewFlagSet(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		PrintLines(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// ParseFlags parses args with fs. When ok is false the subcommand exits
// with code: ExitOK after -h or --help (usage on stdout), ExitUsage after
// a bad flag (the error and usage on stderr).
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below, once the stream is known
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return ExitOK, true
	case errors.Is(err, flag.ErrHelp):
		stderr := fs.Output()
		fs.SetOutput(stdout)
		usage()
		fs.SetOutput(stderr)
		return ExitOK, false
	default:
		usage()
		return ExitUsage, false
	}
}

// ParseInterspersed is ParseFlags for flags that may come before or after
// the positional arguments ("check FILE --demo"); it returns those.
func ParseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, ok bool) {
	for {
		if code, ok := ParseFlags(fs, args, stdout); !ok {
			return nil, code, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, ExitOK, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// IsHelp reports whether arg asks for help instead of naming a
// subcommand.
func IsHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "help" || arg == "-help"
}

// PrintLines writes a usage, one line each.
func PrintLines(w io.Writer, lines []string) {
	for _, line := range lines {
		fmt.Fprintln(w, line)
	}
}

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	ExitRefused = 3
)

// Plural is "s" unless n is 1.
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// StringList is a repeatable, comma-separated flag.
type StringList []string

func (l *StringList) String() string { return strings.Join(*l, ",") }

func (l *StringList) Set(v string) error {
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}
