package adminweb

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// page is what every template gets; Data is the page's own.
type page struct {
	Title string
	// Nav is the active section of the menu.
	Nav string
	// Notice and Error are shown at the top.
	Notice, Error string
	Data          any
	// Warnings are Config.Warnings, for signed-in admins.
	Warnings []string

	// Filled by render.
	Prefix    string
	CSRF      string
	Who       string
	Workspace string
}

// questionRow is what the question partial gets.
type questionRow struct {
	Q            questionView
	Prefix, CSRF string
}

// notices are the messages a redirect after a change may show (by code,
// so that a link cannot make the page say anything else).
var notices = map[string]string{
	"accepted":   "The meaning is now the team's definition. Everyone without a choice of their own gets it without being asked.",
	"dismissed":  "The proposal was set aside. It comes back if more people choose that meaning.",
	"verified":   "The answer is now a verified query of this workspace: the same question gets it directly.",
	"rolledback": "Rolled back. The roll back is itself in the history, and can be rolled back in turn.",
}

func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	s.renderAs(w, r, nil, status, name, p)
}

func (s *Server) renderAs(w http.ResponseWriter, r *http.Request, rq *request, status int, name string, p page) {
	t, ok := s.pages[name]
	if !ok {
		s.log.Error("no such template", "name", name)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	p.Prefix = s.cfg.Prefix
	if rq != nil {
		p.CSRF, p.Who, p.Workspace = rq.sess.CSRF, rq.id.User, rq.id.WorkspaceKey()
		if p.Notice == "" {
			p.Notice = notices[r.URL.Query().Get("notice")]
		}
		if s.cfg.Warnings != nil {
			p.Warnings = s.cfg.Warnings()
		}
	}
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, "layout", p); err != nil {
		s.log.Error("render page", "page", name, "err", err)
		http.Error(w, "The page could not be shown; the details are in the bot's log.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// fail shows a page that says what went wrong and what to do.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, rq *request, status int, text string) {
	s.renderAs(w, r, rq, status, "message", page{Title: http.StatusText(status), Error: text})
}

func (s *Server) funcs() template.FuncMap {
	return template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04 UTC")
		},
		"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"ago": func(t time.Time) string { return ago(s.cfg.Now(), t) },
		"q":   url.QueryEscape,
		"join": func(sep string, xs []string) string {
			return strings.Join(xs, sep)
		},
		"last": func(xs []string) string {
			if len(xs) == 0 {
				return ""
			}
			return xs[len(xs)-1]
		},
		"plural": func(n int, one, many string) string {
			if n == 1 {
				return "1 " + one
			}
			return strconv.Itoa(n) + " " + many
		},
		"query": func(kv ...string) template.URL {
			v := url.Values{}
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i+1] != "" {
					v.Set(kv[i], kv[i+1])
				}
			}
			if len(v) == 0 {
				return ""
			}
			return template.URL("?" + v.Encode())
		},
		"add": func(a, b int) int { return a + b },
		// dropped are a meaning's owners who no longer hold it.
		"dropped": func(m meaningView) []string {
			var out []string
			for _, o := range m.Owners {
				if !slices.Contains(m.Holders, o) {
					out = append(out, o)
				}
			}
			return out
		},
		// distinct lists meanings once per wording (a measure is a column
		// and an aggregate fact with one wording).
		"distinct": func(ms []meaningView) []meaningView {
			var out []meaningView
			for _, m := range ms {
				if !slices.ContainsFunc(out, func(o meaningView) bool { return o.Meaning == m.Meaning && o.Source == m.Source }) {
					out = append(out, m)
				}
			}
			return out
		},
		// qrow gives the question partial its row and the page's prefix and token.
		"qrow": func(p page, q questionView) questionRow { return questionRow{Q: q, Prefix: p.Prefix, CSRF: p.CSRF} },
	}
}

// ago words how long ago t was: "just now", "5 minutes ago", "3 days ago".
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	}
	return plural(int(d/(24*time.Hour)), "day") + " ago"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
