package dialog

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Paging through an answer: "more" shows the next rows, "all" the rest,
// "csv" the whole kept result as a file (Slack and Discord also get a
// Show more button). Rows come from the result the answer fetched, kept
// in memory for a while; when it is no longer kept (a restart, another
// replica, many answers since) the answer's statement runs again — never
// the question — and the reply says so. Nothing goes past the answer's
// row cap (Config.AnswerLimits.MaxRows).

// pageWords are what people type after an answer to see more of it.
var pageWords = map[string]EventKind{
	"more": EventMore, "show more": EventMore, "more rows": EventMore, "show more rows": EventMore,
	"next": EventMore, "next page": EventMore, "next rows": EventMore, "continue": EventMore, "see more": EventMore,
	"all": EventAllRows, "show all": EventAllRows, "all rows": EventAllRows, "show all rows": EventAllRows,
	"show me all": EventAllRows, "show me all rows": EventAllRows, "show everything": EventAllRows, "the rest": EventAllRows,
	"show the rest": EventAllRows, "rest": EventAllRows,
	"csv": EventCSV, "download": EventCSV, "download csv": EventCSV, "export": EventCSV, "export csv": EventCSV,
	"as csv": EventCSV, "send csv": EventCSV, "send the csv": EventCSV, "csv please": EventCSV, "get csv": EventCSV,
	"download the csv": EventCSV, "csv file": EventCSV, "the csv": EventCSV,
}

// PageCommand reads a typed paging word ("more", "show all rows", "csv"),
// or returns 0.
func PageCommand(text string) EventKind {
	t := strings.ToLower(strings.Join(strings.Fields(strings.Trim(text, " ?!.")), " "))
	t = strings.TrimPrefix(t, "please ")
	return pageWords[t]
}

// typedPage answers a paging word typed as a message, about the latest
// answer of the conversation.
func (m *Manager) typedPage(ctx context.Context, st *convState, ev Event, kind EventKind) ([]Reply, error) {
	if st == nil || st.Answer == nil {
		return []Reply{notice(ev.Conversation, "There's no answer here to show more of yet. Ask a question first.")}, nil
	}
	ev.Kind, ev.Target, ev.Option = kind, st.Answer.ID, 0
	return m.page(ctx, st, ev)
}

// pageEvent handles EventMore, EventAllRows and EventCSV (buttons).
func (m *Manager) pageEvent(ctx context.Context, ev Event) ([]Reply, error) {
	st, note, err := m.load(ctx, stateKey(ev))
	if err != nil {
		return nil, err
	}
	if st == nil {
		return []Reply{ephemeral(ev.Conversation, note)}, nil
	}
	return m.page(ctx, st, ev)
}

// page shows more of answer ev.Target.
func (m *Manager) page(ctx context.Context, st *convState, ev Event) ([]Reply, error) {
	ans := st.findAnswer(ev.Target)
	if ans == nil {
		return []Reply{ephemeral(ev.Conversation, "I can't find that answer any more. Please ask again.")}, nil
	}
	res, rerun, err := m.keptResult(ctx, ans)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("page: %w", ctx.Err())
		}
		return []Reply{notice(ev.Conversation, "I couldn't fetch those rows again. "+m.fail("page query failed", err).Text())}, nil
	}
	loc := colfmt.LocaleFor(ev.Locale)
	shape, perr := sqlshape.Parse(ans.shownSQL(), m.labels.TableOf)
	if perr != nil {
		shape = nil
	}
	formats, headings := m.present(res, shape)
	var note string
	if rerun {
		note = "The result was no longer kept, so I ran the answer's query again for these rows; if the data changed since, they may differ from the first ones."
	}
	total := len(res.Rows)
	if ev.Kind == EventCSV {
		data, rows, _ := tables.CSV(headings, res.Rows, 0)
		text := fmt.Sprintf("The whole result as a CSV file (%s rows, raw values).", loc.Int(rows))
		if res.Truncated {
			text = fmt.Sprintf("The result as a CSV file: the first %s rows, the answer's row cap; narrow the question to get the rest.", loc.Int(rows))
		}
		if note != "" {
			text += " " + note
		}
		f := &File{Name: "clarify-" + ans.ID + ".csv", ContentType: "text/csv", Title: fmt.Sprintf("Result (%s rows)", loc.Int(rows)), Data: data, Rows: rows}
		return []Reply{{Kind: ReplyFile, Conversation: ev.Conversation, File: f, Text: text}}, nil
	}
	from := ans.Shown
	if from == 0 && ans.Rows == 0 {
		from = min(m.cfg.DisplayRows, total) // an answer saved before paging: its first page was shown
	}
	if ev.Option > 0 && ev.Option <= total {
		from = ev.Option // how far the adapter showed
	}
	if from >= total {
		msg := fmt.Sprintf("That's all of them: the answer has %s row%s.", loc.Int(total), pick(total == 1, "", "s"))
		if res.Truncated {
			msg = fmt.Sprintf("Those were all %s rows I fetched, the answer's row cap; the warehouse has more. Narrow the question (a filter, a top N) to see the others, or type 'csv' for these as a file.", loc.Int(total))
		}
		return []Reply{notice(ev.Conversation, msg)}, nil
	}
	n := m.cfg.DisplayRows
	if ev.Kind == EventAllRows {
		n = total - from
	}
	a := &Answer{
		ID: ans.ID, Columns: headings, Headings: headings, Formats: formats, Result: res, Added: ans.Added,
		Offset: from, RowCount: total, Truncated: res.Truncated, SQL: ans.SQL, Locale: ev.Locale,
		Rows: formatRows(res.Rows, formats, loc, from, n),
	}
	if note != "" {
		a.Notes = []string{note}
	}
	ans.Shown = from + len(a.Rows)
	if err := m.save(ctx, st); err != nil {
		return nil, err
	}
	text := tables.Render(a.Columns, a.Rows, tables.Options{MaxCellWidth: 40}) + RowsNote(a, loc)
	if note != "" {
		text += "\n" + note
	}
	return []Reply{{Kind: ReplyRows, Conversation: ev.Conversation, Answer: a, Text: text}}, nil
}

// keptResult is the answer's result: kept, or fetched again (rerun), with
// its figure when it had one.
func (m *Manager) keptResult(ctx context.Context, ans *answerRec) (res *sqlresult.Result, rerun bool, err error) {
	if res := m.kept.get(ans.ID); res != nil {
		return res, false, nil
	}
	res, fig, _, err := m.runAnswer(ctx, ans.SQL)
	if err != nil {
		return nil, false, err
	}
	if fig != ans.Run {
		// The figure could not be had again: the pages follow the answer's
		// columns only if it can.
		if ans.Run == "" {
			res = (&Answer{Result: res, Added: 1}).Reading()
		} else {
			return nil, false, fmt.Errorf("the figure beside the answer's rows did not run again")
		}
	}
	m.kept.put(ans.ID, res)
	return res, true, nil
}

// keptResults keeps recent answers' results in memory for paging, the
// least recently used dropped first once their cells pass a budget.
type keptResults struct {
	mu     sync.Mutex
	budget int // cells (rows × columns) kept at most
	used   int
	order  *list.List // of *keptEntry, most recent first
	byID   map[string]*list.Element
}

type keptEntry struct {
	id    string
	res   *sqlresult.Result
	cells int
}

func newKeptResults(budget int) *keptResults {
	return &keptResults{budget: budget, order: list.New(), byID: map[string]*list.Element{}}
}

func cellsOf(res *sqlresult.Result) int {
	return max(len(res.Rows)*max(len(res.Columns), 1), 1)
}

// put keeps res under id; a result larger than the whole budget is not kept.
func (k *keptResults) put(id string, res *sqlresult.Result) {
	if k == nil || res == nil || k.budget <= 0 {
		return
	}
	cells := cellsOf(res)
	if cells > k.budget {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if el, ok := k.byID[id]; ok {
		k.used -= el.Value.(*keptEntry).cells
		k.order.Remove(el)
		delete(k.byID, id)
	}
	for k.used+cells > k.budget && k.order.Len() > 0 {
		last := k.order.Back()
		e := last.Value.(*keptEntry)
		k.order.Remove(last)
		delete(k.byID, e.id)
		k.used -= e.cells
	}
	k.byID[id] = k.order.PushFront(&keptEntry{id: id, res: res, cells: cells})
	k.used += cells
}

func (k *keptResults) get(id string) *sqlresult.Result {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	el, ok := k.byID[id]
	if !ok {
		return nil
	}
	k.order.MoveToFront(el)
	return el.Value.(*keptEntry).res
}
