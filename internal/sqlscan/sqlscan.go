// Package sqlscan splits SQL text into what the server reads as code and
// what it reads as quoted text or comments, and counts parentheses, so that
// code looking for a keyword, a separator or a statement's end finds it only
// where the server would.
//
// It is a lexer of delimiters, not of SQL: a code byte is reported one at a
// time and the caller decides what words and operators mean. Which quotes,
// escapes and comments count is chosen with a Mode; MySQL is the server's
// default reading. Callers that have always read a smaller set (only
// single quotes, no comments) pass that set, so moving them here does not
// change what they find.
package sqlscan

import (
	"iter"
	"strings"
)

// Mode chooses the delimiters a Scanner knows.
type Mode uint16

const (
	// SingleQuote: '…' is a string.
	SingleQuote Mode = 1 << iota
	// DoubleQuote: "…" is a string (MySQL without ANSI_QUOTES).
	DoubleQuote
	// Backquote: `…` is a quoted identifier.
	Backquote
	// Backslash: inside '…' and "…" (never `…`) a backslash escapes the
	// byte after it (MySQL without NO_BACKSLASH_ESCAPES).
	Backslash
	// HashComment: # to the end of the line.
	HashComment
	// DashComment: "--" followed by white space, a control character
	// (any byte up to 0x20, or 0x7f) or the end of the text, to the end of
	// the line; "--1" is two minus signs, as in MySQL.
	DashComment
	// AnyDashComment: "--" followed by anything, to the end of the line.
	AnyDashComment
	// BlockComment: /* … */.
	BlockComment

	// Quotes are the three quotes MySQL knows, without escapes.
	Quotes = SingleQuote | DoubleQuote | Backquote
	// MySQL reads text the way the server does by default.
	MySQL = Quotes | Backslash | HashComment | DashComment | BlockComment
)

// Kind says what a Token is.
type Kind uint8

const (
	// Code is one byte outside quotes and comments.
	Code Kind = iota
	// Quoted is a quoted string or identifier, its quotes included. A
	// doubled quote ('it''s') ends one Quoted token and starts the next
	// at once, so every byte of the text is still inside a Quoted token.
	Quoted
	// Comment is a comment with its delimiters; a line comment stops
	// before the line feed that ends it.
	Comment
)

// Token is one piece of the text, Src[Start:End].
type Token struct {
	Kind       Kind
	Start, End int
	// Depth is the number of parentheses open after the token: a "(" has
	// the depth of the code inside it, a ")" the depth of the code after
	// it; below zero when a ")" has no "(".
	Depth int
	// Terminated is false for a quote or block comment that runs to the
	// end of the text without its closing delimiter.
	Terminated bool
}

// Scanner reads Src from Pos. The zero Depth is the level of Pos; a
// caller that has read ahead (a whole word) may move Pos forward over
// code bytes it has read.
type Scanner struct {
	Src   string
	Mode  Mode
	Pos   int
	Depth int
}

// Tokens yields the tokens of src from its start.
func Tokens(src string, mode Mode) iter.Seq[Token] {
	return (&Scanner{Src: src, Mode: mode}).All()
}

// All yields the tokens from Pos to the end; Pos and Depth follow, so the
// loop body may move Pos.
func (s *Scanner) All() iter.Seq[Token] {
	return func(yield func(Token) bool) {
		for {
			t, ok := s.Next()
			if !ok || !yield(t) {
				return
			}
		}
	}
}

// Next reads the token at Pos and moves past it; false at the end.
func (s *Scanner) Next() (Token, bool) {
	if s.Pos >= len(s.Src) {
		return Token{}, false
	}
	i := s.Pos
	t := Token{Kind: Code, Start: i, End: i + 1, Terminated: true}
	switch c := s.Src[i]; {
	case s.quote(c):
		t.Kind = Quoted
		t.End, t.Terminated = s.quoteEnd(i)
	case s.commentAt(i):
		t.Kind = Comment
		t.End, t.Terminated = s.commentEnd(i)
	case c == '(':
		s.Depth++
	case c == ')':
		s.Depth--
	}
	t.Depth = s.Depth
	s.Pos = t.End
	return t, true
}

func (s *Scanner) quote(c byte) bool {
	switch c {
	case '\'':
		return s.Mode&SingleQuote != 0
	case '"':
		return s.Mode&DoubleQuote != 0
	case '`':
		return s.Mode&Backquote != 0
	}
	return false
}

// quoteEnd is the offset after the quote that closes the one at i.
func (s *Scanner) quoteEnd(i int) (int, bool) {
	q := s.Src[i]
	escapes := s.Mode&Backslash != 0 && q != '`'
	for j := i + 1; j < len(s.Src); j++ {
		switch s.Src[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			return j + 1, true
		}
	}
	return len(s.Src), false
}

func (s *Scanner) commentAt(i int) bool {
	rest := s.Src[i:]
	switch rest[0] {
	case '#':
		return s.Mode&HashComment != 0
	case '-':
		if !strings.HasPrefix(rest, "--") {
			return false
		}
		if s.Mode&AnyDashComment != 0 {
			return true
		}
		return s.Mode&DashComment != 0 && (len(rest) == 2 || rest[2] <= ' ' || rest[2] == 0x7f)
	case '/':
		return s.Mode&BlockComment != 0 && strings.HasPrefix(rest, "/*")
	}
	return false
}

// commentEnd is the offset after the comment that starts at i.
func (s *Scanner) commentEnd(i int) (int, bool) {
	rest := s.Src[i:]
	if rest[0] == '/' {
		if k := strings.Index(rest[2:], "*/"); k >= 0 {
			return i + 2 + k + 2, true
		}
		return len(s.Src), false
	}
	if k := strings.IndexByte(rest, '\n'); k >= 0 {
		return i + k, true
	}
	return len(s.Src), true
}

// Balanced says whether the parentheses in the code of src pair up.
func Balanced(src string, mode Mode) bool {
	s := &Scanner{Src: src, Mode: mode}
	for t := range s.All() {
		if t.Depth < 0 {
			return false
		}
	}
	return s.Depth == 0
}

// Split cuts src at each code byte sep outside parentheses. The pieces
// are as written (not trimmed); there is always at least one.
func Split(src string, sep byte, mode Mode) []string {
	var out []string
	start := 0
	for t := range Tokens(src, mode) {
		if t.Kind == Code && t.Depth == 0 && src[t.Start] == sep {
			out = append(out, src[start:t.Start])
			start = t.End
		}
	}
	return append(out, src[start:])
}
