package slack

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/chart"
	"github.com/clarify-bot/clarify/internal/inflight"
)

// target is where the replies to one event go.
type target struct {
	team, channel, user string
	// thread is the ts of the thread's first message; "" outside a thread
	// (slash commands, App Home), where every reply is shown only to user.
	thread string
	// responseURL answers a slash command or an ephemeral message's button.
	responseURL string
	// viaResponseURL sends ephemeral replies through responseURL: it works
	// in channels the bot is not a member of.
	viaResponseURL bool
	// looking posts a "Looking…" placeholder that the first reply replaces.
	looking     bool
	placeholder string
	// tracked is the placeholder as recorded for failover (nil: not).
	tracked *inflight.Placeholder
	// received is when the event arrived (zero: not timed).
	received time.Time
	// clarTS is the message of the clarification this event answers, to be
	// updated with the choice (clarID) when the dialog says it is resolved.
	clarTS, clarID string
	// home: the event came from the App Home, which is published again with
	// the replies as its status line.
	home bool
}

func (t *target) ref() ref { return ref{Channel: t.channel, Thread: t.thread} }

// render turns a reply into a message.
func render(r dialog.Reply, t *target) message {
	switch {
	case r.Kind == dialog.ReplyClarification && r.Clarification != nil:
		return clarificationMessage(r.Clarification, t.ref(), r.Text)
	case r.Kind == dialog.ReplyAnswer && r.Answer != nil:
		return answerMessage(r.Answer, t.ref(), r.Text)
	case r.Kind == dialog.ReplyRows && r.Answer != nil:
		return rowsMessage(r.Answer, t.ref(), r.Text)
	case r.Kind == dialog.ReplyFile && r.File != nil:
		return fileMessage(r)
	case r.Kind == dialog.ReplyPrefs && r.Prefs != nil:
		return prefsMessage(r.Prefs, t.team, r.Text, ref{Channel: t.channel})
	case r.Kind == dialog.ReplySQL && r.SQL != "":
		return sqlMessage(r.SQL)
	}
	return noticeMessage(r.Text)
}

// deliver shows the replies: the resolved question updated, public replies
// in the thread (the first one replacing the placeholder), ephemeral ones
// to the person alone. Failures are logged: the event was already
// acknowledged and there is no one else to tell.
func (a *Adapter) deliver(ctx context.Context, t *target, replies []dialog.Reply) {
	var status []string
	for _, r := range replies {
		if res := r.Resolved; res != nil && t.clarTS != "" && (t.clarID == "" || res.ClarificationID == t.clarID) {
			if err := a.update(ctx, t.channel, t.clarTS, resolvedMessage(res, t.user)); err != nil {
				a.log.Warn("cannot mark the question answered", "channel", t.channel, "ts", t.clarTS, "err", err)
			}
			t.clarTS = ""
		}
		if t.home {
			if s := strings.TrimSpace(r.Text); s != "" {
				status = append(status, s)
			}
			continue
		}
		m := render(r, t)
		if r.Ephemeral || t.thread == "" {
			a.ephemeral(ctx, t, m)
			continue
		}
		a.public(ctx, t, m)
	}
	if t.placeholder != "" {
		if err := a.call(ctx, "chat.delete", func(ctx context.Context) error {
			_, _, err := a.api.DeleteMessageContext(ctx, t.channel, t.placeholder)
			return err
		}); err != nil {
			a.log.Warn("cannot remove the placeholder", "err", err)
		}
		t.placeholder = ""
	}
	if t.home {
		a.publishHome(ctx, t.team, t.user, t.channel, strings.Join(status, " "))
	}
}

// public posts m in the thread, or puts it in place of the placeholder,
// then attaches its CSV file.
func (a *Adapter) public(ctx context.Context, t *target, m message) {
	posted := false
	if t.placeholder != "" {
		ph := t.placeholder
		t.placeholder = ""
		if err := a.update(ctx, t.channel, ph, m); err != nil {
			a.log.Warn("cannot replace the placeholder; posting instead", "err", err)
		} else {
			posted = true
		}
	}
	if !posted {
		if _, err := a.post(ctx, t.channel, t.thread, m); err != nil {
			a.log.Error("cannot post a reply", "channel", t.channel, "thread", t.thread, "err", err)
			return
		}
	}
	if len(m.CSV) > 0 {
		if err := a.upload(ctx, t.channel, t.thread, m); err != nil {
			a.log.Error("cannot attach the result file", "channel", t.channel, "err", err)
			if _, err := a.post(ctx, t.channel, t.thread, noticeMessage("I couldn't attach the full result as a file; narrow the question to see it here.")); err != nil {
				a.log.Error("cannot post a reply", "err", err)
			}
		}
	}
	if m.Chart != nil {
		// The numbers are already in the thread; a chart that fails is only logged.
		if err := a.uploadChart(ctx, t.channel, t.thread, m); err != nil {
			a.log.Error("cannot attach the chart", "channel", t.channel, "err", err)
		}
	}
}

// uploadChart draws m's chart and shares the PNG in the thread.
func (a *Adapter) uploadChart(ctx context.Context, channel, thread string, m message) error {
	png, err := chart.Render(*m.Chart)
	if err != nil {
		return err
	}
	title := clip(oneLine(m.Chart.Title), 200)
	if title == "" {
		title = "Chart"
	}
	return a.call(ctx, "files.uploadV2", func(ctx context.Context) error {
		_, err := a.api.UploadFileContext(ctx, slack.UploadFileParameters{
			Reader: bytes.NewReader(png), FileSize: len(png), Filename: m.ChartName, Title: title,
			AltTxt: clip("Chart: "+title, 1000), Channel: channel, ThreadTimestamp: thread,
		})
		return err
	})
}

// ephemeral shows m only to t.user.
func (a *Adapter) ephemeral(ctx context.Context, t *target, m message) {
	if t.viaResponseURL && t.responseURL != "" {
		if err := a.checkResponseURL(t.responseURL); err != nil {
			a.log.Warn("refusing a response_url", "err", err)
		} else {
			err := a.call(ctx, "response_url", func(ctx context.Context) error {
				_, _, err := a.api.PostMessageContext(ctx, "",
					slack.MsgOptionResponseURL(t.responseURL, slack.ResponseTypeEphemeral),
					slack.MsgOptionBlocks(m.Blocks...), slack.MsgOptionText(m.Text, true))
				return err
			})
			if err == nil {
				return
			}
			a.log.Warn("response_url failed; trying chat.postEphemeral", "err", err)
		}
	}
	if t.channel == "" || t.user == "" {
		a.log.Warn("nowhere to show an ephemeral reply", "text", m.Text)
		return
	}
	opts := []slack.MsgOption{slack.MsgOptionBlocks(m.Blocks...), slack.MsgOptionText(m.Text, true)}
	if t.thread != "" {
		opts = append(opts, slack.MsgOptionTS(t.thread))
	}
	if err := a.call(ctx, "chat.postEphemeral", func(ctx context.Context) error {
		_, err := a.api.PostEphemeralContext(ctx, t.channel, t.user, opts...)
		return err
	}); err != nil {
		a.log.Error("cannot post an ephemeral reply", "channel", t.channel, "err", err)
	}
}

// checkResponseURL allows only Slack's own hooks (and, for tests, the
// configured API host): the URL comes from the request.
func (a *Adapter) checkResponseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := strings.ToLower(u.Hostname())
	if u.Scheme == "https" && (host == "slack.com" || strings.HasSuffix(host, ".slack.com") || host == "slack-gov.com" || strings.HasSuffix(host, ".slack-gov.com")) {
		return nil
	}
	if api, err := url.Parse(a.cfg.APIURL); err == nil && api.Host != "" && u.Scheme == api.Scheme && strings.EqualFold(u.Host, api.Host) {
		return nil
	}
	return errors.New("response_url is not on a Slack host: " + u.Host)
}

func (a *Adapter) post(ctx context.Context, channel, thread string, m message) (string, error) {
	opts := []slack.MsgOption{
		slack.MsgOptionBlocks(m.Blocks...), slack.MsgOptionText(m.Text, true),
		slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl(),
	}
	if thread != "" {
		opts = append(opts, slack.MsgOptionTS(thread))
	}
	var ts string
	err := a.call(ctx, "chat.postMessage", func(ctx context.Context) error {
		var err error
		_, ts, err = a.api.PostMessageContext(ctx, channel, opts...)
		return err
	})
	return ts, err
}

func (a *Adapter) update(ctx context.Context, channel, ts string, m message) error {
	return a.call(ctx, "chat.update", func(ctx context.Context) error {
		_, _, _, err := a.api.UpdateMessageContext(ctx, channel, ts, slack.MsgOptionBlocks(m.Blocks...), slack.MsgOptionText(m.Text, true))
		return err
	})
}

// upload attaches m's CSV to the thread (files upload v2: get an upload
// URL, send the bytes, complete and share).
func (a *Adapter) upload(ctx context.Context, channel, thread string, m message) error {
	return a.call(ctx, "files.uploadV2", func(ctx context.Context) error {
		_, err := a.api.UploadFileContext(ctx, slack.UploadFileParameters{
			Reader: bytes.NewReader(m.CSV), FileSize: len(m.CSV), Filename: m.Name, Title: m.Title,
			Channel: channel, ThreadTimestamp: thread, SnippetType: "csv",
		})
		return err
	})
}

func (a *Adapter) openView(ctx context.Context, trigger string, v slack.ModalViewRequest) error {
	return a.call(ctx, "views.open", func(ctx context.Context) error {
		_, err := a.api.OpenViewContext(ctx, trigger, v)
		return err
	})
}

// publishHome shows user their App Home: their preferences, and for admins
// everyone's. status is the outcome of the last action taken there.
func (a *Adapter) publishHome(ctx context.Context, team, user, channel, status string) {
	who := dialog.Who{Platform: platform, Workspace: team, Channel: channel, User: user}
	who.Admin = a.admins.isAdmin(ctx, team, user)
	own := a.prefs(ctx, who, "")
	var all *dialog.Prefs
	if who.Admin {
		all = a.prefs(ctx, who, "*")
	}
	view := homeView(own, all, team, status)
	if err := a.call(ctx, "views.publish", func(ctx context.Context) error {
		_, err := a.api.PublishViewContext(ctx, slack.PublishViewContextRequest{UserID: user, View: view})
		return err
	}); err != nil {
		a.log.Error("cannot publish the App Home", "user", user, "err", err)
	}
}

// prefs asks the dialog for a preference list; nil when it has none to give.
func (a *Adapter) prefs(ctx context.Context, who dialog.Who, subject string) *dialog.Prefs {
	replies, err := a.d.Handle(ctx, dialog.Event{Kind: dialog.EventPrefs, Who: who, Subject: subject})
	if err != nil {
		a.log.Error("cannot list preferences", "user", who.User, "subject", subject, "err", err)
		return nil
	}
	for _, r := range replies {
		if r.Kind == dialog.ReplyPrefs && r.Prefs != nil {
			return r.Prefs
		}
	}
	return nil
}
