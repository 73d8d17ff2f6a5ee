package links

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// TimeMention is a date condition: [from, to) as YYYY-MM-DD, either open.
type TimeMention struct {
	Phrase   string
	From, To string
	Year     string // set when the range is exactly one calendar year
	// Days is set for a window ending now ("the last 90 days").
	Days   int
	At     int
	Clause int
}

// windowUnit reads the unit of "the last N days/weeks/months/years".
func windowUnit(w string) string {
	if windowUnits[SingularOf(w)] {
		return SingularOf(w)
	}
	return ""
}

// windowUnits are the units of a window of time (periods.tsv).
var windowUnits = words.Set("windowunit")

var monthNames = words.Ints("month")

func ymd(y, m, d int) string { return fmt.Sprintf("%04d-%02d-%02d", y, m, d) }

func yearRange(y int) (string, string) { return ymd(y, 1, 1), ymd(y+1, 1, 1) }

// lastN open a window of N units up to now; periodLeads before a
// relativePeriod name one relative to now; toDate run from the period's
// start to now (periods.tsv).
var lastN = words.Set("lastn")

var periodLeads = words.Set("periodlead")

var relativePeriods = words.Set("relativeperiod")

var toDate = words.Set("todate")

// FindTimes recognises years, ranges and relative periods.
func (a *Analysis) FindTimes(now time.Time) {
	for i := 0; i < len(a.Toks); i++ {
		t := a.Toks[i]
		if t.Used {
			continue
		}
		switch {
		case t.Low == "between" && a.Toks[min(i+1, len(a.Toks)-1)].IsYear() && a.Word(i+2) == "and" && i+3 < len(a.Toks) && a.Toks[i+3].IsYear():
			y1, y2 := int(a.Toks[i+1].Num), int(a.Toks[i+3].Num)
			from, _ := yearRange(min(y1, y2))
			_, to := yearRange(max(y1, y2))
			a.addTime(i, t.Clause, a.Phrase(i, i+4), from, to)
			for k := i; k <= i+3; k++ {
				a.Toks[k].Used = true
			}
		case lastN[t.Low] && i+2 < len(a.Toks) && a.Toks[i+1].IsNum && a.Toks[i+1].Num >= 1 && windowUnit(a.Word(i+2+windowFiller(a, i+2))) != "":
			i = a.findWindow(i, t, now)
		case t.Low == "past" && a.Word(i+1) == "week":
			// "the past week": the seven days up to today, as "the past 7 days".
			start := now.AddDate(0, 0, -7)
			a.addTime(i, t.Clause, a.Phrase(i, i+2), start.Format("2006-01-02"), "")
			a.Times[len(a.Times)-1].Days = 7
			a.Toks[i].Used, a.Toks[i+1].Used = true, true
			i++
		case periodLeads[t.Low] && relativePeriods[a.Word(i+1)]:
			a.findCalendarPeriod(i, t, now)
		case a.Seq(i, "year", "to", "date") || a.Seq(i, "month", "to", "date") || a.Seq(i, "quarter", "to", "date") || toDate[t.Low]:
			i = a.findToDate(i, t, now)
		case t.IsYear() && !comparedNumber(a.Word(i-1)):
			a.findYear(i, t)
		}
	}
}

// addTime records a time condition from..to, and its year when the range is
// exactly one calendar year, so "in 2024" can also read a year column.
func (a *Analysis) addTime(at, clause int, phrase, from, to string) {
	tm := &TimeMention{Phrase: phrase, From: from, To: to, At: at, Clause: clause}
	if len(from) == 10 && len(to) == 10 && from[4:] == "-01-01" && to[4:] == "-01-01" {
		fy, _ := strconv.Atoi(from[:4])
		ty, _ := strconv.Atoi(to[:4])
		if ty == fy+1 {
			tm.Year = from[:4]
		}
	}
	a.Times = append(a.Times, tm)
}

// findWindow recognises "the last 3 (calendar) weeks" at token i, a window
// ending now or at the start of the period under way, and returns the index
// of its last token so the caller goes on after it.
func (a *Analysis) findWindow(i int, t token.Token, now time.Time) int {
	n := int(a.Toks[i+1].Num)
	start := now
	// "the last 3 calendar weeks": a filler word before the unit.
	st := i
	if f := windowFiller(a, i+2); f > 0 {
		a.Toks[i+2].Used = true
		i += f
	}
	switch windowUnit(a.Word(i + 2)) {
	case "day":
		start = now.AddDate(0, 0, -n)
	case "week":
		start = now.AddDate(0, 0, -7*n)
	case "month":
		start = now.AddDate(0, -n, 0)
	case "year":
		start = now.AddDate(-n, 0, 0)
	}
	// "…, leaving out the month under way": whole periods before
	// the one under way.
	if unit, end := excludedPeriod(a, i+3); unit != "" && unit == windowUnit(a.Word(i+2)) || unit == "day" {
		to := periodStart(now, unit)
		from := to
		switch windowUnit(a.Word(i + 2)) {
		case "day":
			from = to.AddDate(0, 0, -n)
		case "week":
			from = to.AddDate(0, 0, -7*n)
		case "month":
			from = to.AddDate(0, -n, 0)
		case "year":
			from = to.AddDate(-n, 0, 0)
		}
		a.addTime(st, t.Clause, a.Phrase(st, end), from.Format("2006-01-02"), to.Format("2006-01-02"))
		a.MarkUsed(st, end)
		return end - 1
	}
	a.addTime(st, t.Clause, a.Phrase(st, i+3), start.Format("2006-01-02"), "")
	a.Times[len(a.Times)-1].Days = int(now.Sub(start).Hours() / 24)
	a.Toks[st].Used, a.Toks[st+1].Used, a.Toks[i+2].Used = true, true, true
	return i + 2
}

// findCalendarPeriod recognises "this/last year", "last month", "this
// quarter" at token i: a whole calendar period, current or previous.
func (a *Analysis) findCalendarPeriod(i int, t token.Token, now time.Time) {
	y, mo := now.Year(), int(now.Month())
	var from, to string
	switch a.Word(i + 1) {
	case "year":
		if t.Low == "this" {
			from, to = yearRange(y)
		} else {
			from, to = yearRange(y - 1)
		}
	case "month":
		start := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
		if t.Low != "this" {
			start = start.AddDate(0, -1, 0)
		}
		from, to = start.Format("2006-01-02"), start.AddDate(0, 1, 0).Format("2006-01-02")
	case "quarter":
		q := (mo - 1) / 3
		start := time.Date(y, time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC)
		if t.Low != "this" {
			start = start.AddDate(0, -3, 0)
		}
		from, to = start.Format("2006-01-02"), start.AddDate(0, 3, 0).Format("2006-01-02")
	}
	a.addTime(i, t.Clause, a.Phrase(i, i+2), from, to)
	a.Toks[i].Used, a.Toks[i+1].Used = true, true
}

// findToDate recognises "year to date", "mtd" at token i: from the start of
// the period to now; it returns the index of its last token.
func (a *Analysis) findToDate(i int, t token.Token, now time.Time) int {
	// From the start of the period to now.
	y, mo := now.Year(), int(now.Month())
	start := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	switch {
	case t.Low == "month" || t.Low == "mtd":
		start = time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
	case t.Low == "quarter" || t.Low == "qtd":
		start = time.Date(y, time.Month((mo-1)/3*3+1), 1, 0, 0, 0, 0, time.UTC)
	}
	end := i + 1
	if !strings.HasSuffix(t.Low, "td") {
		end = i + 3
	}
	a.addTime(i, t.Clause, a.Phrase(i, end), start.Format("2006-01-02"), "")
	a.MarkUsed(i, end)
	return end - 1
}

// sincePreps before a date leave its end open and untilPreps its start
// (prepositions.tsv).
var sincePreps = words.Set("since")

var untilPreps = words.Set("until")

// findYear recognises a year at token i, with the month before it ("March
// 2024") and an open end said by "since", "after" or "before".
func (a *Analysis) findYear(i int, t token.Token) {
	y := int(t.Num)
	prev := a.Word(i - 1)
	if mo, ok := monthNames[prev]; ok && !(prev == "may" && i >= 2 && a.Word(i-2) == "i") {
		start := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
		from, to := start.Format("2006-01-02"), start.AddDate(0, 1, 0).Format("2006-01-02")
		at := i - 1
		switch w := a.Word(i - 2); {
		case sincePreps[w]:
			to, at = "", i-2 // "since March 2024": open-ended
		case w == "after":
			from, at = to, i-2
			to = ""
		case untilPreps[w]:
			from, to, at = "", from, i-2
		}
		a.addTime(at, t.Clause, a.Phrase(at, i+1), from, to)
		a.MarkUsed(at, i)
	} else {
		from, to := yearRange(y)
		switch {
		case sincePreps[prev]:
			to = ""
		case prev == "after":
			from, to = ymd(y+1, 1, 1), ""
		case untilPreps[prev]:
			from, to = "", ymd(y, 1, 1)
		}
		a.addTime(i, t.Clause, a.Phrase(max(i-1, 0), i+1), from, to)
	}
	a.Toks[i].Used = true
}

// windowFiller is 1 when the word at i only qualifies the time unit after
// it ("calendar months", "full weeks"), else 0.
func windowFiller(a *Analysis, i int) int {
	if wholePeriod[a.Word(i)] {
		return 1
	}
	return 0
}

// wholePeriod qualify a time unit as taken whole (periods.tsv).
var wholePeriod = words.Set("wholeperiod")

// periodExclusions leave out the period after them (negations.tsv);
// thisPeriod and currentPeriod come before it (periods.tsv).
var periodExclusions = words.Set("periodexclusion")

var thisPeriod = words.Set("thisperiod")

var currentPeriod = words.Set("currentperiod")

// excludedPeriod reads "not counting this month", "excluding
// this week", "excluding today" from token i: the period left out (day,
// week, month, year) and the token after the phrase, or "" when there is
// none.
func excludedPeriod(a *Analysis, i int) (string, int) {
	switch {
	case a.Seq(i, "not", "including") || a.Seq(i, "not", "counting"):
		i += 2
	case periodExclusions[a.Word(i)]:
		i++
	default:
		return "", 0
	}
	if a.Word(i) == "today" {
		return "day", i + 1
	}
	if thisPeriod[a.Word(i)] {
		i++
	}
	if currentPeriod[a.Word(i)] {
		i++
	}
	if u := windowUnit(a.Word(i)); u != "" && SingularOf(a.Word(i)) == a.Word(i) {
		return u, i + 1
	}
	return "", 0
}

// periodStart is the first day of the day, week (from Monday), month or
// year under way at now.
func periodStart(now time.Time, unit string) time.Time {
	y, m, d := now.Date()
	switch unit {
	case "week":
		back := (int(now.Weekday()) + 6) % 7
		return time.Date(y, m, d-back, 0, 0, 0, 0, now.Location())
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, now.Location())
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, now.Location())
	}
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}
