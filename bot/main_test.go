package main

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestHelp: every command, and the nested ones, print their usage on
// stdout and exit 0 for -h and --help, with nothing on stderr; a bad flag
// exits 2 with the error and the usage on stderr.
func TestHelp(t *testing.T) {
	var lines [][]string
	for _, c := range commands() {
		lines = append(lines, []string{c.name})
	}
	lines = append(lines, []string{"demo-warehouse"}, []string{"glossary", "check"}, []string{"glossary", "load"},
		[]string{"store", "copy"}, []string{"prefs", "list"}, []string{"prefs", "show"})
	for _, line := range lines {
		for _, flag := range []string{"-h", "--help"} {
			t.Run(strings.Join(line, " ")+" "+flag, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), append(slices.Clone(line), flag), strings.NewReader(""), &stdout, &stderr)
				if code != exitOK {
					t.Fatalf("exit %d, want %d; stderr: %s", code, exitOK, stderr.String())
				}
				if !strings.Contains(strings.ToLower(stdout.String()), "usage: bot "+line[0]) {
					t.Fatalf("stdout has no usage:\n%s", stdout.String())
				}
				if stderr.Len() > 0 {
					t.Fatalf("stderr: %s", stderr.String())
				}
			})
		}
		t.Run(strings.Join(line, " ")+" --no-such-flag", func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(slices.Clone(line), "--no-such-flag"), strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr.String(), "no-such-flag") || !strings.Contains(strings.ToLower(stderr.String()), "usage: bot") {
				t.Fatalf("stderr wants the error and the usage:\n%s", stderr.String())
			}
			if stdout.Len() > 0 {
				t.Fatalf("stdout: %s", stdout.String())
			}
		})
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, nil, &stdout, &stderr); code != exitOK || !strings.HasPrefix(stdout.String(), "usage: bot <command>") || stderr.Len() > 0 {
			t.Errorf("bot %s: exit %d, stdout %q, stderr %q", args[0], code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, nil, &stdout, &stderr); code != exitUsage || !strings.HasPrefix(stderr.String(), "usage: bot <command>") {
		t.Errorf("bot alone: exit %d, stderr %q", code, stderr.String())
	}
}

// TestPackageCommentListsCommands: the package comment lists exactly the
// commands of the table, in its order.
func TestPackageCommentListsCommands(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\tbot ([a-z-]+)`).FindAllStringSubmatch(f.Doc.Text(), -1) {
		listed = append(listed, m[1])
	}
	var want []string
	for _, c := range commands() {
		want = append(want, c.name)
	}
	if !slices.Equal(listed, want) {
		t.Fatalf("the package comment lists %q;\nthe commands are %q", listed, want)
	}
}
