package slack

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/dialogtest"
)

// TestChartInThread: a breakdown answer keeps its table and is followed by
// a PNG chart uploaded (files upload v2) into the same thread.
func TestChartInThread(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const eve, ch = "U0EVE", "C0CHART"
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, eve, ch, ts, "", "how many customers per segment?"))
	ans := h.untilAnswer(since, eve, ch, ts)
	if !strings.Contains(ans.text(), "Enterprise") || !strings.Contains(ans.text(), "A chart follows") {
		t.Fatalf("the answer should keep its table and announce the chart: %s", ans.text())
	}

	done := fake.Wait(t, since, "files.completeUploadExternal", nil)
	if done.Get("channel_id") != ch || done.Get("thread_ts") != ts {
		t.Fatalf("the chart belongs in the question's thread: %v", done.Form)
	}
	var files []struct{ ID, Title string }
	if err := json.Unmarshal([]byte(done.Get("files")), &files); err != nil || len(files) != 1 {
		t.Fatalf("files %s (%v)", done.Get("files"), err)
	}
	if !strings.Contains(strings.ToLower(files[0].Title), "segment") {
		t.Errorf("chart title %q should say what it shows", files[0].Title)
	}
	got := fake.Upload(files[0].ID)
	if !bytes.HasPrefix(got, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("uploaded chart is not a PNG: % x", got[:min(8, len(got))])
	}
	if len(got) < 5000 {
		t.Fatalf("uploaded chart of %d bytes is too small to be a chart", len(got))
	}
	url := fake.Wait(t, since, "files.getUploadURLExternal", nil)
	if !strings.HasSuffix(url.Get("filename"), ".png") {
		t.Errorf("upload file name %q", url.Get("filename"))
	}
	noViolations(t, fake)
}

// TestNoChartForOneNumber: a single figure is a sentence, not a picture.
func TestNoChartForOneNumber(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 1500, dialog.Config{})
	fake := slackfake.New(t)
	h := start(t, fake, env.Manager, ModeHTTP, nil)
	const fay, ch = "U0FAY", "C0CHART"
	ts := newTS()
	since := fake.Mark()
	h.event(mention(t, fay, ch, ts, "", "how many customers do we have?"))
	ans := h.untilAnswer(since, fay, ch, ts)
	if strings.Contains(ans.text(), "chart") {
		t.Fatalf("a single number announced a chart: %s", ans.text())
	}
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	if calls := fake.Calls("files.getUploadURLExternal")[0:]; len(calls) > 0 {
		t.Fatalf("a single number uploaded %d files", len(calls))
	}
}
