// Package console is the terminal chat adapter: it lets a person talk to the
// conversation manager in a terminal, and reads piped input just as well,
// printing the same transcript, so demos and tests can be scripted.
//
// It depends only on dialog's platform-neutral types and on the small Dialog
// interface below; rendering lives in render.go, input parsing in input.go.
package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// Dialog is what the console needs from the conversation manager.
type Dialog interface {
	Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
}

// Options configure a Console.
type Options struct {
	// User is the person's name; events come from
	// Who{Platform: "console", Workspace: "local", Channel: "console", User: User}.
	// Empty means "you".
	User  string
	Admin bool
	// Interactive (a terminal) shows a "> " prompt before each line; otherwise
	// (piped input) each input line is echoed after the prompt so the
	// transcript reads like a chat.
	Interactive bool
	// Session makes conversation ids unique across runs over the same
	// stored conversations ("" keeps console-1, console-2…).
	Session string
	// Examples are example questions, listed at the start; typing an
	// example's number asks it.
	Examples []string
	// Banner is printed first.
	Banner string
	// Logger receives errors and debug traces; nil discards them.
	Logger *slog.Logger
	// ChartDir is where charts of trend and breakdown answers are saved as
	// PNG files (created when needed); "" saves none.
	ChartDir string
	// Store keeps the session between runs (nil: nothing survives): an
	// open clarification is asked again after a restart and a number
	// still answers it.
	Store SessionStore
	// AdminLink makes a sign-in link to the admin console for the person
	// (typed 'admin'); nil: the console is off.
	AdminLink func(ctx context.Context) (string, error)
	// AdminOff is the reply to 'admin' when AdminLink is nil: how to
	// start the admin console ("" says only that it is not running).
	AdminOff string
	// FileDir is where 'csv' saves an answer's whole result (created when
	// needed); "" prints the CSV instead.
	FileDir string
	// Locale is the BCP 47 tag numbers are written for ("de-DE"); "" is en-US.
	Locale string
}

// Who fields of console events.
const (
	Platform  = "console"
	Workspace = "local"
	Channel   = "console"
)

// Identity is the console's person named user: their events come from it
// and their preferences are kept under its keys ("console:local:ana").
func Identity(user string) ontology.Identity {
	return ontology.Identity{Platform: Platform, Workspace: Workspace, Channel: Channel, User: user}
}

const (
	// maxLineBytes bounds one input line in memory; longer lines are cut
	// (and the cut is logged). Lines up to this size are passed on as typed.
	maxLineBytes = 1 << 20
	// maxEchoWidth shortens the echo of long piped lines (display columns).
	maxEchoWidth = 500
	// maxCellWidth and maxTableRows bound result tables.
	maxCellWidth = 40
	maxTableRows = 100
	// noConversation is the conversation id of commands given before any question.
	noConversation = "console-0"
)

// Console is one terminal chat session. Run it once; it is not safe for
// concurrent use.
type Console struct {
	d    Dialog
	in   io.Reader
	out  *errWriter
	opts Options
	log  *slog.Logger
	who  dialog.Who

	// Conversation state, touched only by the goroutine running Run.
	seq        int                   // conversations started
	conv       string                // current conversation; "" before the first question and after 'skip'
	pending    *dialog.Clarification // open question, if any
	otherNext  bool                  // the person picked Other… and the next line is its text
	answer     *dialog.Answer        // last answer, target of yes/no/sql/change
	answerConv string
	prefs      []dialog.FactView // last preferences listing, for 'delete <n>'
}

// New returns a console that reads lines from in and writes the transcript to out.
func New(d Dialog, in io.Reader, out io.Writer, opts Options) *Console {
	if opts.User == "" {
		opts.User = "you"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	id := Identity(opts.User)
	return &Console{
		d:    d,
		in:   in,
		out:  &errWriter{w: out},
		opts: opts,
		log:  log.With("adapter", "console"),
		who: dialog.Who{
			Platform:  id.Platform,
			Workspace: id.Workspace,
			Channel:   id.Channel,
			User:      id.User,
			Admin:     opts.Admin,
		},
	}
}

// Run greets the person and handles lines until end of input or "quit"
// (returning nil), a read or write failure (returning it), or ctx is done
// (returning ctx.Err() promptly). Lines are read by a goroutine that Run
// starts; if Run returns while that goroutine is blocked in a Read that
// never ends, it exits as soon as the Read returns and sends nothing more.
func (c *Console) Run(ctx context.Context) error {
	done := make(chan struct{})
	defer close(done)
	lines := make(chan string)
	var readErr error // set before lines is closed
	go func() {
		defer close(lines)
		br := bufio.NewReader(c.in)
		for {
			line, cut, err := readLine(br, maxLineBytes)
			if cut {
				c.log.Warn("input line cut", "max_bytes", maxLineBytes)
			}
			if line != "" || err == nil {
				select {
				case lines <- line:
				case <-done:
					return
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
		}
	}()

	resumed := c.restore()
	c.greet()
	if resumed {
		c.out.line("You had an open question before the restart:")
		c.printClarification(c.pending)
		c.out.line("")
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.opts.Interactive {
			c.out.printf("> ")
		}
		if c.out.err != nil {
			return fmt.Errorf("write console transcript: %w", c.out.err)
		}
		var line string
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l, ok := <-lines:
			if !ok {
				if readErr != nil {
					return fmt.Errorf("read console input: %w", readErr)
				}
				if c.opts.Interactive {
					c.out.line("") // end the prompt line
				}
				c.out.line("Bye.")
				if c.out.err != nil {
					return fmt.Errorf("write console transcript: %w", c.out.err)
				}
				return nil
			}
			line = l
		}
		quit := c.handleLine(ctx, line)
		c.persist()
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.out.err != nil {
			return fmt.Errorf("write console transcript: %w", c.out.err)
		}
		if quit {
			return nil
		}
	}
}

// send completes ev, passes it to the manager and renders the replies. A
// failure is logged and shown as plain text; the session continues.
func (c *Console) send(ctx context.Context, ev dialog.Event) {
	ev.Who = c.who
	ev.Locale = c.opts.Locale
	if ev.Conversation == "" {
		ev.Conversation = noConversation
	}
	c.log.DebugContext(ctx, "console event", "kind", int(ev.Kind), "conversation", ev.Conversation, "target", ev.Target)
	replies, err := c.handle(ctx, ev)
	if err != nil {
		if ctx.Err() != nil {
			return // Run is stopping; nothing to apologise for
		}
		c.log.ErrorContext(ctx, "handle console event", "kind", int(ev.Kind), "conversation", ev.Conversation, "err", err)
		c.out.line(dialog.FailureText(ctx, c.log, err))
		return
	}
	for _, r := range replies {
		c.render(r)
	}
}

// handle calls the manager, turning a panic into an error so one bad event
// cannot end the session.
func (c *Console) handle(ctx context.Context, ev dialog.Event) (replies []dialog.Reply, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.log.ErrorContext(ctx, "panic in dialog", "panic", p, "stack", string(debug.Stack()))
			replies, err = nil, fmt.Errorf("dialog panicked: %v", p)
		}
	}()
	return c.d.Handle(ctx, ev)
}

// IsTerminal reports whether f is a terminal (a character device), which
// decides Options.Interactive. golang.org/x/term is not a dependency of the
// module, so this checks the file mode; /dev/null counts as a terminal too,
// which only means a prompt is printed before end of input.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}

// errWriter remembers the first write error and skips later writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) printf(format string, a ...any) {
	if w.err != nil {
		return
	}
	_, w.err = fmt.Fprintf(w.w, format, a...)
}

func (w *errWriter) line(s string) {
	if w.err != nil {
		return
	}
	_, w.err = io.WriteString(w.w, s+"\n")
}

// readLine reads one line without its line ending, keeping at most limit
// bytes of it (cut reports a longer line). At end of input it returns the
// last unterminated line, if any, together with io.EOF.
func readLine(br *bufio.Reader, limit int) (line string, cut bool, err error) {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := limit - len(buf); len(frag) > room {
			buf = append(buf, frag[:room]...)
			cut = true
		} else {
			buf = append(buf, frag...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		n := len(buf)
		if n > 0 && buf[n-1] == '\n' {
			n--
		}
		if n > 0 && buf[n-1] == '\r' {
			n--
		}
		return string(buf[:n]), cut, err
	}
}
