package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// newFlagSet is the flag set of a subcommand, name as typed ("bot sql").
// Its usage is the lines given, then the flags; parseFlags sends it to
// stdout for -h and --help, and to stderr after the error for a bad flag.
// Calling fs.Usage() directly prints it to stderr.
func newFlagSet(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		printLines(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args with fs. When ok is false the subcommand exits
// with code: exitOK after -h or --help (usage on stdout), exitUsage after
// a bad flag (the error and usage on stderr).
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below, once the stream is known
	err := fs.Parse(args)
	fs.Usage = usage
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		stderr := fs.Output()
		fs.SetOutput(stdout)
		usage()
		fs.SetOutput(stderr)
		return exitOK, false
	default:
		usage()
		return exitUsage, false
	}
}

// parseInterspersed is parseFlags for flags that may come before or after
// the positional arguments ("check FILE --demo"); it returns those.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) (pos []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, stdout); !ok {
			return nil, code, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, exitOK, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// isHelp reports whether arg asks for help instead of naming a
// subcommand.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "help" || arg == "-help"
}

// printLines writes a usage, one line each.
func printLines(w io.Writer, lines []string) {
	for _, line := range lines {
		fmt.Fprintln(w, line)
	}
}
